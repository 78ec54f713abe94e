package app.talkide.controlplane.report;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** The request bodies of {@code /api/internal/worker/*}, one record per kind (docs/worker-contract.md). */
final class ReportBodies {

    private ReportBodies() {}

    /** A tool the agent used: started, or completed (with outcome and duration). */
    record ToolEvent(
            @NotBlank @Size(max = 200) String id,
            @NotNull UUID conversationId,
            @NotBlank @Size(max = 200) String toolUseId,
            @NotBlank @Size(max = 200) String tool,
            @NotBlank @Pattern(regexp = "started|completed") String phase,
            @Nullable Boolean isError,
            @Nullable @PositiveOrZero Long durationMs,
            @Nullable @Size(max = 4000) String summary,
            @Nullable Instant occurredAt)
            implements WorkerReport {}

    /** Tokens a model call used, as the worker counted them. */
    record Usage(
            @NotBlank @Size(max = 200) String id,
            @NotNull UUID conversationId,
            @NotBlank @Size(max = 200) String model,
            @PositiveOrZero long inputTokens,
            @PositiveOrZero long outputTokens,
            @PositiveOrZero long cacheCreationInputTokens,
            @PositiveOrZero long cacheReadInputTokens,
            @Nullable Instant occurredAt)
            implements WorkerReport {}

    /** A line of the agent's activity log (e.g. "build started", "tests passed"). */
    record Activity(
            @NotBlank @Size(max = 200) String id,
            @NotNull UUID conversationId,
            @NotBlank @Size(max = 100) String activity,
            @Nullable @Size(max = 4000) String message,
            @Nullable Instant occurredAt)
            implements WorkerReport {}

    /** An issue the talkide-issue-tracking MCP server reported. */
    record Issue(
            @NotBlank @Size(max = 200) String id,
            @NotNull UUID conversationId,
            @NotBlank @Size(max = 300) String title,
            @Nullable @Size(max = 20_000) String body,

            @Nullable @Pattern(regexp = "low|medium|high|critical")
            String severity,

            @Nullable @Size(max = 20) List<@NotBlank @Size(max = 50) String> labels,
            @Nullable Instant occurredAt)
            implements WorkerReport {}
}
