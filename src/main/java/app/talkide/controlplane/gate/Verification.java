package app.talkide.controlplane.gate;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One cut-over verification of a tenant-environment, or an operator's override, as the admin API shows it.
 *
 * @param outcome {@code RUNNING}, {@code PASSED}, {@code FAILED} or {@code OVERRIDDEN}
 * @param cause {@code on_demand}, {@code worker_changed} or {@code operator_override}
 * @param detail what failed, or the operator's reason
 */
public record Verification(
        UUID id,
        String tenant,
        String env,
        String outcome,
        String cause,
        @Nullable String detail,
        @Nullable String requestedBy,
        Instant startedAt,
        @Nullable Instant finishedAt) {}
