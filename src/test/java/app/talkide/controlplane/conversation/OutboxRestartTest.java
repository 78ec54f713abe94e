package app.talkide.controlplane.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.local.runtime.LocalWorkerRuntime;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A message the browser was told is accepted (202) survives the control plane: accepted while the worker
 * is down, the control plane stopped before delivering it, and a new start on the same database delivers
 * it, as local mode's run command would.
 */
@DatabaseTest
class OutboxRestartTest {

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");
    static final String DEV = TestHttp.basic("dev", "dev");

    @Test
    void aMessageAcceptedBeforeARestartIsDeliveredAfterIt(@TempDir Path dataDir) {
        Map<String, Object> database = TestDatabase.freshSettings();
        UUID conversation;
        UUID message;
        try (ConfigurableApplicationContext first = start(dataDir, database)) {
            first.getBean(LocalWorkerRuntime.class).stopWorker(DEMO);
            TestHttp http = new TestHttp(port(first));
            conversation = UUID.fromString(
                    http.postJson("/api/conversations", "{\"tenant\":\"demo\",\"env\":\"dev\"}", "Authorization", DEV)
                            .json()
                            .get("id")
                            .asString());
            TestHttp.Response accepted = http.postJson(
                    "/api/conversations/" + conversation + "/messages",
                    "{\"text\":\"survive this\",\"clientMessageId\":\"m-1\"}",
                    "Authorization",
                    DEV);
            assertThat(accepted.status()).isEqualTo(202);
            message = UUID.fromString(accepted.json().get("messageId").asString());
            assertThat(first.getBean(MessageOutbox.class).nextUndelivered(conversation))
                    .map(OutboxMessage::id)
                    .contains(message);
        }

        try (ConfigurableApplicationContext second = start(dataDir, database)) {
            MessageOutbox outbox = second.getBean(MessageOutbox.class);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> outbox.nextUndelivered(conversation).isEmpty());
            ConversationEventLog log = second.getBean(ConversationEventLog.class);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> log.readAfter(conversation, 0, 1000).stream()
                            .anyMatch(e ->
                                    e.type().equals("turn.started") && e.data().contains(message.toString())));
        }
    }

    private static ConfigurableApplicationContext start(Path dataDir, Map<String, Object> database) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + dataDir,
                "--talkide.worker.delivery.initial-backoff=50ms",
                "--talkide.worker.delivery.max-backoff=500ms"));
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new SpringApplicationBuilder(ControlPlaneApplication.class).run(args.toArray(String[]::new));
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }
}
