package app.talkide.controlplane.gate;

import app.talkide.controlplane.budget.UsageReports;
import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildState;
import app.talkide.controlplane.builds.Builds;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.MessageIntake;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One verification: a synthetic user, made a real member of the tenant-environment for the run (so every
 * normal check applies: the mint's owner standing, the gateway's budget), starts a conversation and sends
 * a message through the outbox; the worker answers through mint → gateway → upstream (or simulator) →
 * events back. With builds enabled the message asks Mara to run a small Gradle build with her
 * {@code run_build} tool, and that build must succeed too. The membership is removed afterwards, whatever
 * happened. Returns null when it passed, else what failed.
 */
@Component
class GateRun {

    static final String MESSAGE = "TalkIDE cut-over verification: answer with the single word OK.";
    static final String BUILD_MESSAGE = "TalkIDE cut-over verification: run one build with the run_build tool"
            + " (kind gradle, task help, argument --version), then answer with the single word OK."
            + " [[sim:tool_use=mcp__talkide-builds__run_build"
            + " {\"kind\":\"gradle\",\"tasks\":[\"help\"],\"arguments\":[\"--version\"]}]]";
    private static final Duration POLL = Duration.ofMillis(250);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Memberships memberships;
    private final Conversations conversations;
    private final MessageIntake intake;
    private final ConversationEventLog eventLog;
    private final Builds builds;
    private final VerificationRepository repository;
    private final UsageReports usage;
    private final GateProperties properties;

    GateRun(
            Memberships memberships,
            Conversations conversations,
            MessageIntake intake,
            ConversationEventLog eventLog,
            Builds builds,
            VerificationRepository repository,
            UsageReports usage,
            GateProperties properties) {
        this.memberships = memberships;
        this.conversations = conversations;
        this.intake = intake;
        this.eventLog = eventLog;
        this.builds = builds;
        this.repository = repository;
        this.usage = usage;
        this.properties = properties;
    }

    @Nullable
    String run(UUID verificationId, TenantEnvironmentId in) throws InterruptedException {
        String user = "talkide-gate-" + verificationId;
        memberships.grant(in, user);
        try {
            Conversation conversation = conversations.start(in, user, "Cut-over verification");
            boolean withBuild = builds.enabled();
            intake.accept(conversation, user, "gate-" + verificationId, withBuild ? BUILD_MESSAGE : MESSAGE);
            ConversationEvent end = awaitTurnEnd(conversation.id());
            if (end == null) {
                return "the worker did not answer within "
                        + properties.turnTimeout().toSeconds() + " s" + lastWorkerStatus(conversation.id());
            }
            if (end.type().equals("turn.failed")) {
                return turnFailed(conversation.id(), end);
            }
            return withBuild ? buildFailure(conversation.id()) : null;
        } finally {
            memberships.revoke(in, user);
        }
    }

    private @Nullable ConversationEvent awaitTurnEnd(UUID conversationId) throws InterruptedException {
        long deadline = System.nanoTime() + properties.turnTimeout().toNanos();
        long after = 0;
        while (System.nanoTime() < deadline) {
            List<ConversationEvent> events = eventLog.readAfter(conversationId, after, 200);
            for (ConversationEvent event : events) {
                after = event.seq();
                if (event.type().equals("turn.completed") || event.type().equals("turn.failed")) {
                    return event;
                }
            }
            if (events.isEmpty()) {
                Thread.sleep(POLL);
            }
        }
        return null;
    }

    private String turnFailed(UUID conversationId, ConversationEvent end) {
        JsonNode error = JSON.readTree(end.data()).path("error");
        String reported = error.path("type").asString("unknown") + ": "
                + error.path("message").asString("");
        if (usage.callsOfConversation(conversationId) == 0) {
            return "the worker never reached the gateway: it could not mint a WorkerToken (or reach the control"
                    + " plane); the turn failed with " + reported;
        }
        return "the worker's model call through the gateway failed; the turn failed with " + reported;
    }

    private @Nullable String buildFailure(UUID conversationId) throws InterruptedException {
        long deadline = System.nanoTime() + properties.buildTimeout().toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Build> build =
                    builds.ofConversation(conversationId).stream().findFirst();
            if (build.isEmpty()) {
                return "the worker answered but started no build (its run_build tool did not reach the control plane)";
            }
            if (build.get().state() == BuildState.SUCCEEDED) {
                return null;
            }
            if (build.get().state().finished()) {
                return "the verification build " + build.get().state().name().toLowerCase(java.util.Locale.ROOT)
                        + (build.get().reason() == null
                                ? ""
                                : ": " + build.get().reason());
            }
            Thread.sleep(POLL);
        }
        return "the verification build did not end within "
                + properties.buildTimeout().toMinutes() + " min";
    }

    private String lastWorkerStatus(UUID conversationId) {
        return eventLog.lastOfTypes(conversationId, List.of("worker.status"))
                .map(e -> "; the worker was last "
                        + JSON.readTree(e.data()).path("status").asString("?") + " ("
                        + JSON.readTree(e.data()).path("detail").asString("") + ")")
                .orElse("");
    }
}
