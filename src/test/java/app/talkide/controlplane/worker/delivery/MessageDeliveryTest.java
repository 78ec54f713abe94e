package app.talkide.controlplane.worker.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.AcceptedMessage;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.MessageIntake;
import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.conversation.OutboxMessage;
import app.talkide.controlplane.local.runtime.LocalWorkerRuntime;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Delivery from the outbox to the embedded reference worker over real HTTP, its turns through the real
 * gateway to the built-in simulator, and the worker stream back into the event log.
 */
@DatabaseTest
// A context of its own (own properties): close it afterwards so its connection pool does not linger.
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"talkide.worker.delivery.initial-backoff=50ms", "talkide.worker.delivery.max-backoff=500ms"})
class MessageDeliveryTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    MessageIntake intake;

    @Autowired
    ConversationEventLog eventLog;

    @Autowired
    MessageOutbox outbox;

    @Autowired
    LocalWorkerRuntime workers;

    TenantEnvironmentId tenantEnvironment;
    Conversation conversation;

    @BeforeEach
    void setUp() {
        tenantEnvironment = Fixtures.tenantEnvironment(context);
        conversation = Fixtures.conversation(context, tenantEnvironment, "dev");
    }

    @Test
    void messagesAreDeliveredInOrderOneTurnAtATime() {
        List<AcceptedMessage> sent = List.of(accept("one"), accept("two"), accept("three"));

        await().atMost(Duration.ofSeconds(30)).until(() -> turnEnds().size() == 3);

        List<ConversationEvent> log = eventLog.readAfter(conversation.id(), 0, 1000);
        List<String> turnTypes = log.stream()
                .map(ConversationEvent::type)
                .filter(type -> type.startsWith("turn."))
                .toList();
        assertThat(turnTypes)
                .containsExactly(
                        "turn.started",
                        "turn.completed",
                        "turn.started",
                        "turn.completed",
                        "turn.started",
                        "turn.completed");
        assertThat(log.stream().filter(e -> e.type().equals("text.delta"))).isNotEmpty();
        assertThat(log.stream()
                        .filter(e -> e.type().equals("turn.started"))
                        .map(e -> TestHttp.JSON
                                .readTree(e.data())
                                .get("messageId")
                                .asString()))
                .containsExactly(
                        sent.get(0).messageId().toString(),
                        sent.get(1).messageId().toString(),
                        sent.get(2).messageId().toString());
        assertThat(log.stream().map(ConversationEvent::sourceEventId).filter(Objects::nonNull))
                .doesNotHaveDuplicates();
        assertThat(outbox.nextUndelivered(conversation.id())).isEmpty();
    }

    @Test
    void whileTheWorkerIsDownTheUserSeesItAndTheMessageWaits() {
        workers.stopWorker(tenantEnvironment);
        AcceptedMessage message = accept("are you there?");

        await().atMost(Duration.ofSeconds(10)).until(() -> statuses().contains("starting"));
        assertThat(outbox.nextUndelivered(conversation.id()))
                .map(OutboxMessage::id)
                .contains(message.messageId());

        workers.start(tenantEnvironment);

        await().atMost(Duration.ofSeconds(30)).until(() -> turnEnds().size() == 1);
        assertThat(statuses()).containsExactly("starting", "ready");
        assertThat(outbox.nextUndelivered(conversation.id())).isEmpty();
    }

    @Test
    void aMessageTheWorkerRefusesEndsAsOneFailedTurnAndTheNextIsDelivered() {
        // The reference worker takes at most 100,000 characters of text (400 beyond, as the contract allows).
        AcceptedMessage refused = accept("x".repeat(100_001));
        AcceptedMessage next = accept("after the refused one");

        await().atMost(Duration.ofSeconds(30)).until(() -> turnEnds().size() == 2);

        List<ConversationEvent> ends = turnEnds();
        assertThat(ends.get(0).type()).isEqualTo("turn.failed");
        var failure = TestHttp.JSON.readTree(ends.get(0).data());
        assertThat(failure.get("messageId").asString())
                .isEqualTo(refused.messageId().toString());
        assertThat(failure.get("error").get("type").asString()).isEqualTo("message_rejected");
        assertThat(ends.get(1).type()).isEqualTo("turn.completed");
        assertThat(TestHttp.JSON.readTree(ends.get(1).data()).get("messageId").asString())
                .isEqualTo(next.messageId().toString());
        assertThat(outbox.nextUndelivered(conversation.id())).isEmpty();

        // Rejected again (a replica that failed before marking it delivered, or another one at once):
        // still one event.
        String key = ends.get(0).sourceEventId();
        assertThat(key).isNotNull();
        eventLog.append(
                conversation.id(),
                List.of(new NewConversationEvent("turn.failed", ends.get(0).data(), key)));
        assertThat(turnEnds()).hasSize(2);
    }

    /** As the browser API does: stored in the outbox, then announced with {@code MessageAccepted}. */
    private AcceptedMessage accept(String text) {
        return intake.accept(conversation, "dev", UUID.randomUUID().toString(), text);
    }

    private List<ConversationEvent> turnEnds() {
        return eventLog.readAfter(conversation.id(), 0, 1000).stream()
                .filter(e -> e.type().equals("turn.failed") || e.type().equals("turn.completed"))
                .toList();
    }

    private List<String> statuses() {
        return eventLog.readAfter(conversation.id(), 0, 1000).stream()
                .filter(e -> e.type().equals("worker.status"))
                .map(e -> TestHttp.JSON.readTree(e.data()).get("status").asString())
                .toList();
    }
}
