package app.talkide.controlplane.report;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A stored report as the APIs show it.
 *
 * @param seq its position among all reports: pass it as {@code after} to page on
 * @param id the worker's own id for it
 * @param report the body as the worker sent it (validated)
 */
public record StoredReport(
        long seq,
        String id,
        String kind,
        UUID conversationId,
        String tenant,
        String env,
        String userId,
        @Nullable Instant occurredAt,
        Instant receivedAt,
        JsonNode report) {}
