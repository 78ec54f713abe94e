package app.talkide.controlplane.support;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * The WireMock stand-in for the Anthropic API that {@link WithWireMockUpstream} test classes share: one server
 * per test JVM, started on first use, on a port that stays the same for the JVM's life. Its URL is therefore the
 * same in every Spring context, so the context cache can share contexts between such classes; a class of its own
 * per server (as a {@code @DynamicPropertySource} gives) would make every one of them start a context.
 */
public final class WireMockUpstream {

    /** The property the gateway's upstream client is built from. */
    public static final String URL_PROPERTY = "talkide.gateway.upstream-url";

    private WireMockUpstream() {}

    /** The shared server, started (and warmed) on first call. */
    public static WireMockServer server() {
        return Holder.SERVER;
    }

    /** Its base URL, on the loopback address: a worker in Node would try {@code localhost} as ::1 first. */
    public static String baseUrl() {
        return "http://127.0.0.1:" + server().port();
    }

    private static final class Holder {

        static final WireMockServer SERVER = start();

        private static WireMockServer start() {
            WireMockServer server =
                    new WireMockServer(WireMockConfiguration.options().dynamicPort());
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "wiremock-upstream-stop"));
            warm(server);
            return server;
        }

        /**
         * A cold WireMock's first answer (its classes loading, its first match) has taken longer than a
         * gateway's 2 s response timeout on a loaded machine; the timeouts tested are the gateway's, so the
         * stand-in answers once before any test calls it.
         */
        private static void warm(WireMockServer server) {
            try (HttpClient client = HttpClient.newHttpClient()) {
                client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/warm-up"))
                                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                throw new IllegalStateException("WireMock upstream did not answer", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            server.resetAll();
        }
    }

    /** Every test starts from no stubs, no scenarios and an empty request journal, as its own server would. */
    public static final class Reset implements BeforeEachCallback {

        @Override
        public void beforeEach(ExtensionContext context) {
            server().resetAll();
        }
    }

    /** Points the gateway of every context of a {@link WithWireMockUpstream} class at the shared server. */
    public static final class UrlProperty implements ContextCustomizerFactory {

        @Override
        public ContextCustomizer createContextCustomizer(
                Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
            return new Customizer();
        }
    }

    /** Equal for every class: the URL is the same for the whole JVM, so it never splits the context cache. */
    private static final class Customizer implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource("wiremock-upstream", Map.of(URL_PROPERTY, baseUrl())));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Customizer;
        }

        @Override
        public int hashCode() {
            return Customizer.class.hashCode();
        }
    }
}
