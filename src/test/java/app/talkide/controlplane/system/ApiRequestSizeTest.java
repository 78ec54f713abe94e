package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.RawHttp;
import app.talkide.controlplane.support.TestHttp;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Bodies on {@code /api/**} are capped before they are read (declared length) or while (chunked). */
@DatabaseTest
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "talkide.api.max-request-size=8KB")
class ApiRequestSizeTest {

    static final String DEV = TestHttp.basic("dev", "dev");

    @LocalServerPort
    int port;

    @Test
    void hugeDeclaredMessageIs413WithoutBeingRead() {
        // 60 MiB declared, none sent: only an answer made before reading can arrive.
        for (String path : new String[] {
            "/api/conversations/" + UUID.randomUUID() + "/messages", "/api/internal/worker/reports/usage"
        }) {
            try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(10))) {
                String response = raw.send("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + DEV
                                + "\r\nContent-Type: application/json\r\nContent-Length: " + 60 * 1024 * 1024
                                + "\r\n\r\n{")
                        .response();

                assertThat(RawHttp.status(response)).as(path).isEqualTo(413);
                assertThat(response).contains("application/problem+json").contains("request-too-large");
            }
        }
    }

    @Test
    void hugeChunkedMessageIs413AsSoonAsItPassesTheLimit() {
        String body = "{\"title\":\"" + "x".repeat(20_000) + "\"}";
        TestHttp http = new TestHttp(port);

        TestHttp.Response response = http.send(http.request("/api/conversations")
                .header("Authorization", DEV)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))))
                .build());

        assertThat(response.status()).isEqualTo(413);
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
        assertThat(response.json().get("type").asString()).endsWith("/request-too-large");
    }

    @Test
    void bodiesUnderTheLimitAreReadAsBefore() {
        TestHttp http = new TestHttp(port);
        TestHttp.Response response = http.postJson("/api/conversations", "{oops", "Authorization", DEV);

        assertThat(response.status()).isEqualTo(400);
    }
}
