package app.talkide.controlplane.report;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** What every report carries: the worker's own id (the idempotency key), its conversation, and when. */
sealed interface WorkerReport
        permits ReportBodies.ToolEvent, ReportBodies.Usage, ReportBodies.Activity, ReportBodies.Issue {

    String id();

    UUID conversationId();

    @Nullable
    Instant occurredAt();
}
