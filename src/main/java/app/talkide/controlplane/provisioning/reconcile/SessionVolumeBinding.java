package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;

/**
 * Whether the session volume is stuck unbound. Its claim asks for ReadWriteMany, which many storage classes
 * (block storage: EBS, Persistent Disk, most local provisioners) cannot provide: the claim then stays
 * {@code Pending}, the worker pod never schedules, and without this the tenant-environment would show
 * {@code PROVISIONING} forever. After a bounded wait it says why instead.
 */
final class SessionVolumeBinding {

    /** Stable prefix of the status reason, for operators' alerts and searches. */
    static final String UNBOUND = "session-volume-unbound";

    /** The degraded reason, or {@code null} while the claim is bound, missing, or still within {@code timeout}. */
    static @Nullable String unboundReason(
            TenantEnvironmentId id,
            @Nullable PersistentVolumeClaim live,
            @Nullable String storageClass,
            Duration timeout,
            Instant now) {
        if (live == null
                || live.getStatus() == null
                || !"Pending".equals(live.getStatus().getPhase())) {
            return null;
        }
        Instant created = created(live);
        if (created == null || Duration.between(created, now).compareTo(timeout) < 0) {
            return null;
        }
        String liveClass = live.getSpec() == null ? null : live.getSpec().getStorageClassName();
        String named = liveClass != null ? liveClass : storageClass;
        return UNBOUND + ": the session volume " + ManagedNames.SESSIONS_VOLUME + " has been Pending for more than "
                + timeout.toSeconds() + " s; "
                + (named == null ? "the cluster's default storage class" : "storage class " + named)
                + " may not provide ReadWriteMany (NFS-like) volumes. See `kubectl -n " + id.namespace()
                + " describe pvc " + ManagedNames.SESSIONS_VOLUME + "`; choose a storageClass that does.";
    }

    private static @Nullable Instant created(PersistentVolumeClaim live) {
        String timestamp = live.getMetadata().getCreationTimestamp();
        if (timestamp == null) {
            return null;
        }
        try {
            return Instant.parse(timestamp);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private SessionVolumeBinding() {}
}
