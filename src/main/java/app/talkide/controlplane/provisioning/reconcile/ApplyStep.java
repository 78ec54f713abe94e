package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.provisioning.objects.ControlPlaneAccessBuilder;
import app.talkide.controlplane.provisioning.objects.TenantEnvironmentObjects;
import app.talkide.controlplane.provisioning.objects.TenantNamespaceBuilder;
import app.talkide.controlplane.provisioning.objects.WorkerAccessBuilder;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One pass over one tenant-environment: the namespace first (refusing one that is not ours), then every
 * object in it through {@link ObjectApplier}. In a steady state it only reads: one GET per object.
 * The first object of {@link TenantEnvironmentObjects#inNamespace} is the control plane's own access; it is
 * applied before anything in the namespace is read.
 */
final class ApplyStep {

    /**
     * @param written the kinds it created or patched, one entry per write
     * @param degradedReason why the tenant-environment is not in shape, or {@code null}
     * @param workerReady whether the live worker Deployment had a ready pod when the pass read it
     * @param transientFailure whether a write or read failed on an error that goes away by itself
     * @param leadershipLost whether the pass stopped before a write because this replica no longer leads
     */
    record Result(
            List<String> written,
            @Nullable String degradedReason,
            boolean workerReady,
            boolean transientFailure,
            boolean leadershipLost) {

        Result(List<String> written, @Nullable String degradedReason, boolean workerReady) {
            this(written, degradedReason, workerReady, false, false);
        }

        static Result stopped(List<String> written) {
            return new Result(written, null, false, false, true);
        }
    }

    private final KubernetesClient client;
    private final ObjectApplier applier;
    private final WorkerSecretValues secrets;
    private final ProvisioningProperties properties;
    private final Clock clock;

    ApplyStep(
            KubernetesClient client,
            ObjectApplier applier,
            WorkerSecretValues secrets,
            ProvisioningProperties properties,
            Clock clock) {
        this.client = client;
        this.applier = applier;
        this.secrets = secrets;
        this.properties = properties;
        this.clock = clock;
    }

    /** @param stillLeading asked before every object: a replica that lost the Lease writes nothing more */
    Result apply(TenantEnvironmentId id, DesiredState desired, BooleanSupplier stillLeading) {
        List<String> written = new ArrayList<>();
        Namespace desiredNamespace = TenantNamespaceBuilder.build(id, desired);
        Namespace liveNamespace = applier.read(desiredNamespace);
        if (liveNamespace != null && NamespaceOwnership.foreignReason(liveNamespace, id) instanceof String foreign) {
            return new Result(written, foreign, false);
        }
        if (!stillLeading.getAsBoolean()) {
            return Result.stopped(written);
        }
        ObjectApplier.Outcome namespaceOutcome = applier.apply(desiredNamespace, liveNamespace);
        if (namespaceOutcome == ObjectApplier.Outcome.TERMINATING) {
            return new Result(written, "The namespace " + id.namespace() + " is being deleted.", false);
        }
        if (namespaceOutcome.wrote()) {
            written.add("Namespace");
        }
        // A namespace created just now holds nothing yet: no need to read what is in it.
        boolean fresh = liveNamespace == null;
        if (!stillLeading.getAsBoolean()) {
            return Result.stopped(written);
        }
        // The control plane's own rights in the namespace come first: every later call needs them.
        RoleBinding access = ControlPlaneAccessBuilder.build(id, desired, properties);
        try {
            if (applier.apply(access, fresh ? null : applier.read(access)).wrote()) {
                written.add("RoleBinding");
            }
        } catch (KubernetesClientException e) {
            return new Result(
                    written,
                    "Could not apply RoleBinding " + ManagedNames.CONTROL_PLANE_ACCESS + ": " + describe(e),
                    false);
        }
        Secret liveSecret = fresh ? null : read(Secret.class, id, ManagedNames.WORKER_SECRET);
        Deployment liveDeployment = fresh ? null : read(Deployment.class, id, ManagedNames.WORKER);
        WorkerSecretValues.Values values = secrets.decide(id, liveSecret);
        List<HasMetadata> objects = TenantEnvironmentObjects.inNamespace(
                id, desired, properties, values.identityToken(), values.commandKey(), rolledAt(values, liveDeployment));

        String degraded = null;
        boolean transientFailure = false;
        PersistentVolumeClaim liveClaim = null;
        for (HasMetadata object : objects.subList(1, objects.size())) {
            if (!stillLeading.getAsBoolean()) {
                return Result.stopped(written);
            }
            try {
                HasMetadata live = fresh
                        ? null
                        : object instanceof Secret secret
                                        && ManagedNames.WORKER_SECRET.equals(
                                                secret.getMetadata().getName())
                                ? liveSecret
                                : object instanceof Deployment ? liveDeployment : applier.read(object);
                if (live instanceof PersistentVolumeClaim claim) {
                    liveClaim = claim;
                }
                HasMetadata wanted = object instanceof PersistentVolumeClaim claim && liveClaim != null
                        ? VolumeExpansion.neverShrink(claim, liveClaim)
                        : object;
                ObjectApplier.Outcome outcome = applier.apply(wanted, live);
                if (outcome.wrote()) {
                    written.add(object.getKind());
                } else if (outcome == ObjectApplier.Outcome.TERMINATING && degraded == null) {
                    degraded = object.getKind() + " " + object.getMetadata().getName()
                            + " is being deleted; it is recreated once it is gone.";
                }
            } catch (KubernetesClientException e) {
                transientFailure |= TransientApiError.is(e);
                if (degraded == null) {
                    degraded = "Could not apply " + object.getKind() + " "
                            + object.getMetadata().getName() + ": " + describe(e);
                }
            }
        }
        if (!fresh && degraded == null && stillLeading.getAsBoolean()) {
            removeRetiredWorkerRbac(id, written);
        }
        boolean ready = isReady(liveDeployment);
        if (degraded == null && !ready) {
            degraded = SessionVolumeBinding.unboundReason(
                    id, liveClaim, desired.storageClass(), properties.sessionVolumeBindTimeout(), clock.instant());
        }
        return new Result(written, degraded, ready, transientFailure, false);
    }

    /**
     * The worker's Role and RoleBinding of earlier releases (it ran build Jobs itself): deleted where they
     * still exist, so no worker keeps rights it no longer needs. Read first, so a pass without them writes
     * nothing.
     */
    private void removeRetiredWorkerRbac(TenantEnvironmentId id, List<String> written) {
        String name = WorkerAccessBuilder.RETIRED_RBAC;
        var bindings = client.rbac().roleBindings().inNamespace(id.namespace()).withName(name);
        if (bindings.get() != null) {
            bindings.delete();
            written.add("RoleBinding (retired)");
        }
        var roles = client.rbac().roles().inNamespace(id.namespace()).withName(name);
        if (roles.get() != null) {
            roles.delete();
            written.add("Role (retired)");
        }
    }

    /** Keeps the live value unless the Secret changes: pods read it only at start, so then they must roll. */
    private String rolledAt(WorkerSecretValues.Values values, @Nullable Deployment live) {
        if (!values.changed()
                && live != null
                && live.getSpec() != null
                && live.getSpec().getTemplate() != null) {
            Map<String, String> annotations =
                    live.getSpec().getTemplate().getMetadata().getAnnotations();
            String current = annotations == null ? null : annotations.get(ManagedNames.ROLLED_AT_ANNOTATION);
            if (current != null) {
                return current;
            }
        }
        return clock.instant().toString();
    }

    private <T extends HasMetadata> @Nullable T read(Class<T> kind, TenantEnvironmentId id, String name) {
        return client.resources(kind).inNamespace(id.namespace()).withName(name).get();
    }

    private static boolean isReady(@Nullable Deployment deployment) {
        return deployment != null
                && deployment.getStatus() != null
                && deployment.getStatus().getReadyReplicas() != null
                && deployment.getStatus().getReadyReplicas() > 0;
    }

    /** The API server's answer, short; it names objects, never their content. */
    static String describe(KubernetesClientException e) {
        String message = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : String.valueOf(e.getMessage());
        String text = "HTTP " + e.getCode() + " " + message;
        return text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }
}
