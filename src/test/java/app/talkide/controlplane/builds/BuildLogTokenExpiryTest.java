package app.talkide.controlplane.builds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A worker's build log stream lives no longer than the WorkerToken that opened it: at the token's expiry it
 * stops without an {@code end} event, and a fresh token with {@code Last-Event-ID} resumes after the last
 * line. Only the stream is under test, so the build is a stored row and its log is written as the leader
 * writes it; no cluster.
 */
@DatabaseTest
// Stays: a configuration no other class has, so nothing could reuse the context; closing it frees its pool.
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"talkide.tokens.worker-token-ttl=4s", "talkide.builds.log-poll-interval=100ms"})
class BuildLogTokenExpiryTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    BuildRepository repository;

    @Autowired
    Builds builds;

    @Autowired
    BuildLog log;

    @LocalServerPort
    int port;

    @Test
    void theStreamEndsWithItsTokenAndAFreshTokenResumesAfterTheLastLine() {
        TestHttp http = new TestHttp(port);
        TenantEnvironmentId in = Fixtures.tenantEnvironment(context);
        Conversation conversation = Fixtures.conversation(context, in, "dev");
        UUID build = UUID.randomUUID();
        repository.insert(
                build,
                in,
                conversation.id(),
                "dev",
                new BuildSpec(BuildKind.GRADLE, List.of("test"), List.of(), null, null, null),
                Instant.now());
        assertThat(builds.claimNext(in)).isPresent();
        log.append(build, List.of("> Task :compileJava"));
        String url = "http://127.0.0.1:" + port + "/api/internal/worker/builds/" + build + "/logs";

        Instant opened = Instant.now();
        try (SseClient first = SseClient.connect(url, "X-Worker-Token", mint(http, conversation))) {
            await().atMost(Duration.ofSeconds(20)).until(first::ended);
            assertThat(Duration.between(opened, Instant.now()))
                    .as("open until the token expired")
                    .isGreaterThan(Duration.ofSeconds(2));
            assertThat(first.events()).extracting(SseClient.Event::type).containsExactly("line");
        }

        log.append(build, List.of("> Task :test", "BUILD SUCCESSFUL"));
        Build running = builds.find(build).orElseThrow();
        assertThat(builds.finish(running, BuildState.RUNNING, BuildState.SUCCEEDED, null))
                .isTrue();
        try (SseClient resumed =
                SseClient.connect(url, "X-Worker-Token", mint(http, conversation), "Last-Event-ID", "1")) {
            await().atMost(Duration.ofSeconds(20)).until(resumed::ended);
            assertThat(resumed.events())
                    .extracting(SseClient.Event::data)
                    .startsWith("> Task :test", "BUILD SUCCESSFUL");
            assertThat(resumed.events().getLast().type()).isEqualTo("end");
        }
    }

    private String mint(TestHttp http, Conversation of) {
        String identity =
                Fixtures.identityToken(context, of.tenantEnvironment()).token();
        return http.postJson(
                        "/api/v1/worker-gateway/token/mint",
                        "{\"conversationId\":\"" + of.id() + "\"}",
                        "Authorization",
                        "Bearer " + identity)
                .json()
                .get("token")
                .asString();
    }
}
