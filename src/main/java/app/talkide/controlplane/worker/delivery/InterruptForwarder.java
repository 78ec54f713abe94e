package app.talkide.controlplane.worker.delivery;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.conversation.InterruptRequested;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerLocator;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.client.WorkerCallFailed;
import app.talkide.controlplane.worker.client.WorkerClient;
import app.talkide.controlplane.worker.stream.WorkerStatusNotices;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Passes the user's "stop" on to the worker. Retried briefly: an interrupt that arrives after the worker
 * came back is still worth sending, one that arrives minutes later is not (the turn has long ended).
 */
@Component
class InterruptForwarder {

    private static final int ATTEMPTS = 3;

    private final ConversationDirectory directory;
    private final WorkerLocator runtime;
    private final WorkerClient client;
    private final WorkerStatusNotices notices;
    private final ExponentialBackOff backOff;

    InterruptForwarder(
            ConversationDirectory directory,
            WorkerLocator runtime,
            WorkerClient client,
            WorkerStatusNotices notices,
            WorkerProperties properties) {
        this.directory = directory;
        this.runtime = runtime;
        this.client = client;
        this.notices = notices;
        this.backOff = MessageDelivery.retryPolicy(properties.delivery());
    }

    @EventListener
    void onInterruptRequested(InterruptRequested requested) {
        directory
                .scopeOf(requested.conversationId())
                .ifPresent(scope -> Thread.ofVirtual()
                        .name("interrupt-" + scope.conversationId())
                        .start(() -> forward(scope)));
    }

    private void forward(ConversationScope scope) {
        BackOffExecution backoff = backOff.start();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            WorkerLocation location = runtime.locate(scope.tenantEnvironment());
            try {
                client.interrupt(location, scope.conversationId());
                return;
            } catch (WorkerCallFailed failed) {
                if (attempt == ATTEMPTS) {
                    notices.callFailed(scope.conversationId(), failed);
                    return;
                }
            }
            try {
                Thread.sleep(backoff.nextBackOff());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
