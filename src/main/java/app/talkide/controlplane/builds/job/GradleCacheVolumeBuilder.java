package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.BuildNames;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * PVC {@code gradle-cache}: one Gradle user home per tenant-environment, ReadWriteMany. Builds of one
 * tenant-environment run concurrently (up to {@code max-running}) on whichever build nodes are free; a
 * ReadWriteOnce volume would pin them all to one node (or leave the second waiting for the first), and a
 * cache per build would make every build a cold start. Gradle coordinates concurrent builds sharing a
 * user home through lock files, which needs a storage class with working file locks (NFSv4). See
 * docs/builds.md.
 */
public final class GradleCacheVolumeBuilder {

    public static PersistentVolumeClaim build(TenantEnvironmentId id, BuildProperties.Gradle gradle) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(BuildNames.GRADLE_CACHE_VOLUME)
                .withNamespace(id.namespace())
                .withLabels(ManagedNames.labelsOf(id))
                .endMetadata()
                .withNewSpec()
                .withAccessModes("ReadWriteMany")
                .withStorageClassName(gradle.cacheStorageClass())
                .withNewResources()
                .addToRequests("storage", new Quantity(gradle.cacheSize()))
                .endResources()
                .endSpec()
                .build();
    }

    private GradleCacheVolumeBuilder() {}
}
