package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * PVC {@code claude-sessions}: the worker's {@code CLAUDE_CONFIG_DIR}, so a restarted worker resumes its
 * sessions. ReadWriteMany (NFS-like), because during a rolling update the old and the new pod share it.
 */
public final class SessionVolumeBuilder {

    public static PersistentVolumeClaim build(TenantEnvironmentId id, DesiredState desired) {
        return new PersistentVolumeClaimBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.SESSIONS_VOLUME))
                .withNewSpec()
                .withAccessModes("ReadWriteMany")
                .withStorageClassName(desired.storageClass())
                .withNewResources()
                .addToRequests("storage", new Quantity(desired.storageSize()))
                .endResources()
                .endSpec()
                .build();
    }

    private SessionVolumeBuilder() {}
}
