package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.provisioning.objects.TenantEnvironmentObjects;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Tears a tenant-environment's objects down: each object the control plane created (so nothing is left even
 * where no namespace controller runs), then the namespace, all with background propagation so the call
 * returns at once and Pods and ReplicaSets go with their owners. The control plane puts no finalizers on
 * anything, so nothing of its own can block; a foreign finalizer can, so the wait is bounded and a
 * namespace still terminating is reported (with what holds it) and looked at again on the next pass,
 * without waiting again. A namespace that is not ours is left alone.
 */
final class Deprovisioning {

    /** @param done whether nothing of the tenant-environment is left */
    record Result(int writes, boolean done, @Nullable String reason) {}

    private final KubernetesClient client;
    private final ProvisioningProperties properties;

    Deprovisioning(KubernetesClient client, ProvisioningProperties properties) {
        this.client = client;
        this.properties = properties;
    }

    Result run(TenantEnvironmentId id, DesiredState desired) {
        var namespaceResource = client.namespaces().withName(id.namespace());
        Namespace live = namespaceResource.get();
        if (live == null || !NamespaceOwnership.isOurs(live, id)) {
            return new Result(0, true, null);
        }
        if (live.getMetadata().getDeletionTimestamp() != null) {
            return new Result(0, false, stillTerminating(live));
        }
        int writes = 0;
        List<HasMetadata> objects =
                new ArrayList<>(TenantEnvironmentObjects.inNamespace(id, desired, properties, "", "", ""));
        java.util.Collections.reverse(objects);
        for (HasMetadata object : objects) {
            if (!client.resource(object)
                    .withPropagationPolicy(DeletionPropagation.BACKGROUND)
                    .delete()
                    .isEmpty()) {
                writes++;
            }
        }
        namespaceResource.withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        writes++;
        try {
            namespaceResource.waitUntilCondition(
                    Objects::isNull, properties.deprovisionTimeout().toMillis(), TimeUnit.MILLISECONDS);
            return new Result(writes, true, null);
        } catch (KubernetesClientTimeoutException stillThere) {
            Namespace terminating = namespaceResource.get();
            return terminating == null
                    ? new Result(writes, true, null)
                    : new Result(writes, false, stillTerminating(terminating));
        }
    }

    private static String stillTerminating(Namespace namespace) {
        StringBuilder reason =
                new StringBuilder("The namespace " + namespace.getMetadata().getName() + " is still terminating");
        List<String> finalizers = namespace.getMetadata().getFinalizers();
        if (finalizers != null && !finalizers.isEmpty()) {
            reason.append("; held by finalizers ").append(finalizers);
        }
        if (namespace.getStatus() != null && namespace.getStatus().getConditions() != null) {
            namespace.getStatus().getConditions().stream()
                    .filter(condition -> "True".equals(condition.getStatus()))
                    .forEach(condition -> reason.append("; ").append(condition.getMessage()));
        }
        return reason.append(". See the runbook for a stuck tenant-environment.")
                .toString();
    }
}
