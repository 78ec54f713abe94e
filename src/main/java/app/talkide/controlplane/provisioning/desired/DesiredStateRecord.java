package app.talkide.controlplane.provisioning.desired;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A stored desired state with the reconcile bookkeeping.
 *
 * @param generation raised by every change of the spec
 * @param appliedGeneration the generation the last successful pass brought into the cluster
 * @param lastReconciledAt when a pass last finished for it
 * @param driftRepairs writes made to put back what changed in the cluster on its own
 */
public record DesiredStateRecord(
        DesiredStateSpec spec,
        long generation,
        long appliedGeneration,
        @Nullable Instant lastReconciledAt,
        long driftRepairs) {

    static DesiredStateRecord unset() {
        return new DesiredStateRecord(DesiredStateSpec.DEFAULTS, 0, 0, null, 0);
    }
}
