package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Resources;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Deployment {@code talkide-worker}: one worker pod with the environment of the worker contract (SPEC §7),
 * its tokens from the Secret, its sessions on the shared volume, locked down (non-root, read-only root
 * filesystem, no privilege escalation, no capabilities). The pod-template annotation
 * {@link ManagedNames#ROLLED_AT_ANNOTATION} is what rolls it: pods read the Secret only when they start.
 * Rolling updates start the new pod before stopping the old one, so token rotation never leaves a gap.
 */
public final class WorkerDeploymentBuilder {

    public static final String CONTAINER = "worker";
    public static final String CONFIG_DIR = "/data/claude";
    /** The worker image's non-root user; {@code fsGroup} makes the NFS volume writable for it. */
    static final long WORKER_UID = 10001L;

    public static Deployment build(
            TenantEnvironmentId id, DesiredState desired, ProvisioningProperties properties, String rolledAt) {
        Map<String, String> podLabels = new LinkedHashMap<>(ManagedMetadata.labels(id, desired));
        podLabels.putAll(ManagedMetadata.workerSelector(id));
        return new DeploymentBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER))
                .withNewSpec()
                .withReplicas(1)
                .withRevisionHistoryLimit(3)
                .withNewSelector()
                .withMatchLabels(ManagedMetadata.workerSelector(id))
                .endSelector()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0))
                .withMaxSurge(new IntOrString(1))
                .endRollingUpdate()
                .endStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(podLabels)
                .withAnnotations(Map.of(ManagedNames.ROLLED_AT_ANNOTATION, rolledAt))
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName(ManagedNames.WORKER)
                // No Kubernetes credentials in a pod that runs agent-written code (docs/builds.md).
                .withAutomountServiceAccountToken(false)
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withRunAsUser(WORKER_UID)
                .withRunAsGroup(WORKER_UID)
                .withFsGroup(WORKER_UID)
                .withFsGroupChangePolicy("OnRootMismatch")
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .addNewContainer()
                .withName(CONTAINER)
                .withImage(desired.workerImage())
                .addNewPort()
                .withName("http")
                .withContainerPort(ManagedNames.WORKER_PORT)
                .withProtocol("TCP")
                .endPort()
                .withEnv(environment(id, properties))
                .withResources(resources(desired.resources()))
                .withStartupProbe(probe("/healthz", 30))
                .withLivenessProbe(probe("/healthz", 3))
                .withReadinessProbe(probe("/readyz", 3))
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withReadOnlyRootFilesystem(true)
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .endSecurityContext()
                .addNewVolumeMount()
                .withName(ManagedNames.SESSIONS_VOLUME)
                .withMountPath(CONFIG_DIR)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName("tmp")
                .withMountPath("/tmp")
                .endVolumeMount()
                .endContainer()
                .addNewVolume()
                .withName(ManagedNames.SESSIONS_VOLUME)
                // No readOnly: false: the API server drops false booleans here, and the pass would see drift.
                .withNewPersistentVolumeClaim()
                .withClaimName(ManagedNames.SESSIONS_VOLUME)
                .endPersistentVolumeClaim()
                .endVolume()
                // A read-only root filesystem still needs somewhere for Node and git to write scratch files.
                .addNewVolume()
                .withName("tmp")
                .withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /** The worker contract's environment (docs/worker-contract.md); names as the reference worker reads them. */
    static List<EnvVar> environment(TenantEnvironmentId id, ProvisioningProperties properties) {
        return List.of(
                value("TALKIDE_GATEWAY_BASE_URL", properties.gatewayBaseUrl().toString()),
                value("TALKIDE_CONTROL_PLANE_URL", properties.controlPlaneUrl().toString()),
                fromSecret("TALKIDE_WORKER_IDENTITY_TOKEN", ManagedNames.IDENTITY_TOKEN_KEY),
                fromSecret("TALKIDE_WORKER_COMMAND_KEY", ManagedNames.COMMAND_KEY_KEY),
                value("CLAUDE_CONFIG_DIR", CONFIG_DIR),
                value("TALKIDE_TENANT", id.tenant()),
                value("TALKIDE_ENV", id.env()),
                value("TALKIDE_WORKER_PORT", String.valueOf(ManagedNames.WORKER_PORT)));
    }

    static ResourceRequirements resources(Resources resources) {
        return new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(resources.cpuRequest()))
                .addToRequests("memory", new Quantity(resources.memoryRequest()))
                .addToLimits("cpu", new Quantity(resources.cpuLimit()))
                .addToLimits("memory", new Quantity(resources.memoryLimit()))
                .build();
    }

    private static Probe probe(String path, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(path)
                .withPort(new IntOrString("http"))
                .endHttpGet()
                .withPeriodSeconds(5)
                .withFailureThreshold(failureThreshold)
                .build();
    }

    private static EnvVar value(String name, String value) {
        return new EnvVarBuilder().withName(name).withValue(value).build();
    }

    private static EnvVar fromSecret(String name, String key) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewSecretKeyRef(key, ManagedNames.WORKER_SECRET, false)
                .endValueFrom()
                .build();
    }

    private WorkerDeploymentBuilder() {}
}
