package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import app.talkide.controlplane.support.WithWireMockUpstream;
import com.github.tomakehurst.wiremock.WireMockServer;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.web.firewall.FirewalledRequest;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Gateway calls, served or refused, never enter Spring Security's filter chain proxy (every request that
 * does passes its firewall first, which this test counts) and have no Spring MVC handler, while the rest
 * of {@code /api/internal/**} still goes through both. The refusals themselves: {@link GatewayRefusalsTest}.
 */
@DatabaseTest
@Import(GatewayOutsideSecurityChainTest.CountingFirewall.class)
@WithWireMockUpstream
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "talkide.gateway.api-key=" + API_KEY)
class GatewayOutsideSecurityChainTest {

    static final String PREFIX = "/api/internal/gateway/anthropic";

    static final WireMockServer upstream = WireMockUpstream.server();

    /** Spring Security's own firewall, noting the path of every request that reaches the chain proxy. */
    @TestConfiguration(proxyBeanMethods = false)
    static class CountingFirewall {
        @Bean
        SeenBySecurity seenBySecurity() {
            return new SeenBySecurity();
        }
    }

    static final class SeenBySecurity implements HttpFirewall {

        final Queue<String> paths = new ConcurrentLinkedQueue<>();
        private final StrictHttpFirewall strict = new StrictHttpFirewall();

        @Override
        public FirewalledRequest getFirewalledRequest(HttpServletRequest request) {
            paths.add(request.getRequestURI());
            return strict.getFirewalledRequest(request);
        }

        @Override
        public jakarta.servlet.http.HttpServletResponse getFirewalledResponse(
                jakarta.servlet.http.HttpServletResponse response) {
            return strict.getFirewalledResponse(response);
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    SeenBySecurity seen;

    @Test
    void gatewayCallsNeverReachSpringSecurityWhileTheRestOfTheInternalApiDoes() {
        upstream.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(AnthropicFixtures.json(OPUS, AnthropicFixtures.usage(1, 0, 0, 1)))));
        GatewayTestSupport worker = GatewayTestSupport.newWorker(context);
        TestHttp http = new TestHttp(port);
        String body = AnthropicFixtures.request(OPUS, false, 16);

        TestHttp.Response served = http.postJson(MESSAGES, body, "X-Worker-Token", worker.token());
        assertThat(served.status()).isEqualTo(200);
        assertThat(served.header("X-Content-Type-Options")).isEqualTo("nosniff");
        TestHttp.Response refused = http.postJson(MESSAGES, body);
        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.header("X-Content-Type-Options")).isEqualTo("nosniff");
        assertThat(refused.json().get("error").get("type").asString()).isEqualTo("authentication_error");
        assertThat(http.get(PREFIX + "/v1/models", "X-Worker-Token", worker.token())
                        .status())
                .isEqualTo(404);
        assertThat(http.get("/api/internal/worker/whoami", "X-Worker-Token", worker.token())
                        .status())
                .isEqualTo(200);

        List<String> paths = List.copyOf(seen.paths);
        assertThat(paths).as("the probe sees what reaches Spring Security").contains("/api/internal/worker/whoami");
        assertThat(paths).noneMatch(path -> path.startsWith(PREFIX));
    }

    @Test
    void noSpringMvcHandlerIsMappedUnderTheGatewayPrefix() {
        var mappings = context.getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class)
                .getHandlerMethods();
        assertThat(mappings).isNotEmpty();
        assertThat(mappings.keySet()).noneMatch(info -> info.toString().contains("/api/internal/gateway"));
    }
}
