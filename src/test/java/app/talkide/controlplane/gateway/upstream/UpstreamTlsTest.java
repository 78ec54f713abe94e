package app.talkide.controlplane.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties.UpstreamClientKind;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The upstream client over TLS, against a real HTTPS server whose certificate (for {@code localhost}
 * only) the test makes with the JDK's keytool: trusted and matching it carries calls; a certificate
 * nobody vouches for, or one for another name, ends the call before the request (and its key) is sent.
 */
@ParameterizedClass
@EnumSource(UpstreamClientKind.class)
class UpstreamTlsTest {

    private static final char[] PASSWORD = "changeit".toCharArray();

    @TempDir
    static Path dir;

    private static HttpsServer server;
    private static SSLContext trustingTheTestCertificate;

    @BeforeAll
    static void start() throws Exception {
        Path store = dir.resolve("upstream.p12");
        String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(
                        keytool,
                        "-genkeypair",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-alias",
                        "upstream",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=dns:localhost",
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit",
                        "-keypass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();

        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = java.nio.file.Files.newInputStream(store)) {
            keys.load(in, PASSWORD);
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, PASSWORD);
        SSLContext serverContext = SSLContext.getInstance("TLS");
        serverContext.init(keyManagers.getKeyManagers(), null, null);

        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("upstream", keys.getCertificate("upstream"));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext clientContext = SSLContext.getInstance("TLS");
        clientContext.init(null, trust.getTrustManagers(), null);
        trustingTheTestCertificate = clientContext;

        server = HttpsServer.create(new InetSocketAddress(0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverContext));
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/v1/messages", exchange -> {
            byte[] request = exchange.getRequestBody().readAllBytes();
            String key = exchange.getRequestHeaders().getFirst("x-api-key");
            byte[] answer = ("{\"echo\":" + new String(request, StandardCharsets.UTF_8) + ",\"key\":\"" + key + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    @Test
    void aTrustedCertificateForTheHostCarriesCalls() throws Exception {
        UpstreamClient client = client(trustingTheTestCertificate);
        AnthropicUpstream target = target("localhost");
        try {
            for (int i = 0; i < 2; i++) {
                UpstreamResponse response = client.post(
                        target, "/v1/messages", null, headers -> {}, "[1]".getBytes(StandardCharsets.UTF_8));
                assertThat(response.statusCode()).isEqualTo(200);
                try (InputStream body = response.body()) {
                    assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8))
                            .isEqualTo("{\"echo\":[1],\"key\":\"sk-tls-key\"}");
                }
            }
        } finally {
            client.close();
        }
    }

    @Test
    void aCertificateForAnotherNameIsRefused() {
        UpstreamClient client = client(trustingTheTestCertificate);
        try {
            // The certificate names localhost only; 127.0.0.1 is the same server under a name it does not hold.
            assertThatThrownBy(() -> client.post(target("127.0.0.1"), "/v1/messages", null, headers -> {}, new byte[0]))
                    .isInstanceOf(UpstreamFailure.class)
                    .hasMessage("the upstream connection failed")
                    .hasRootCauseInstanceOf(java.security.cert.CertificateException.class);
        } finally {
            client.close();
        }
    }

    @Test
    void aCertificateNobodyVouchesForIsRefused() throws Exception {
        UpstreamClient client = client(SSLContext.getDefault());
        try {
            assertThatThrownBy(() -> client.post(target("localhost"), "/v1/messages", null, headers -> {}, new byte[0]))
                    .isInstanceOf(UpstreamFailure.class)
                    .hasMessage("the upstream connection failed");
        } finally {
            client.close();
        }
    }

    @Parameter
    UpstreamClientKind kind;

    private UpstreamClient client(SSLContext tls) {
        return UpstreamClients.create(kind, Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofMinutes(3), tls);
    }

    private static AnthropicUpstream target(String host) {
        return new UpstreamClientTest.Target(
                URI.create("https://" + host + ":" + server.getAddress().getPort()), "sk-tls-key");
    }
}
