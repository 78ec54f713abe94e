package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;

/**
 * Every object of a tenant-environment inside its namespace, in the order they are applied: the control
 * plane's own access first (every other call in the namespace needs it), what the Deployment refers to
 * (account, Secret, volume) before the Deployment, the limits before any pod.
 */
public final class TenantEnvironmentObjects {

    /**
     * @param identityToken the identity token to put into the Secret (issued or kept by the reconciler)
     * @param commandKey the command keys in their Secret form
     * @param rolledAt the pod-template annotation's value; a new value rolls the worker
     */
    public static List<HasMetadata> inNamespace(
            TenantEnvironmentId id,
            DesiredState desired,
            ProvisioningProperties properties,
            String identityToken,
            String commandKey,
            String rolledAt) {
        return List.of(
                ControlPlaneAccessBuilder.build(id, desired, properties),
                NamespaceLimitsBuilder.resourceQuota(id, desired),
                NamespaceLimitsBuilder.limitRange(id, desired, properties.jobContainerDefaults()),
                WorkerAccessBuilder.serviceAccount(id, desired),
                WorkerSecretBuilder.build(id, desired, identityToken, commandKey),
                WorkerMcpSecretBuilder.build(id, desired),
                SessionVolumeBuilder.build(id, desired),
                WorkerNetworkPolicyBuilder.build(id, desired, properties),
                WorkerServiceBuilder.build(id, desired),
                WorkerDeploymentBuilder.build(id, desired, properties, rolledAt));
    }

    private TenantEnvironmentObjects() {}
}
