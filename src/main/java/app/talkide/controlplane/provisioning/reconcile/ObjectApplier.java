package app.talkide.controlplane.provisioning.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The one apply step: compares a desired object with its live version and writes only when they differ on
 * the fields the control plane owns: create when missing, JSON merge patch when changed. A merge patch
 * replaces lists whole (containers, rules, ports) and merges maps, so fields others add to maps survive.
 */
final class ObjectApplier {

    enum Outcome {
        UNCHANGED,
        CREATED,
        PATCHED,
        /** Being deleted by someone; recreated once it is gone. */
        TERMINATING;

        boolean wrote() {
            return this == CREATED || this == PATCHED;
        }
    }

    private final KubernetesClient client;
    private final KubernetesSerialization serialization;

    ObjectApplier(KubernetesClient client) {
        this.client = client;
        this.serialization = client.getKubernetesSerialization();
    }

    <T extends HasMetadata> @Nullable T read(T desired) {
        return client.resource(desired).get();
    }

    /** Applies {@code desired} given its {@code live} version as read in this pass ({@code null}: none). */
    <T extends HasMetadata> Outcome apply(T desired, @Nullable HasMetadata live) {
        if (live == null) {
            client.resource(desired).create();
            return Outcome.CREATED;
        }
        if (live.getMetadata().getDeletionTimestamp() != null) {
            return Outcome.TERMINATING;
        }
        if (matches(desired, live)) {
            return Outcome.UNCHANGED;
        }
        client.resource(desired).patch(PatchContext.of(PatchType.JSON_MERGE), serialization.asJson(desired));
        return Outcome.PATCHED;
    }

    boolean matches(HasMetadata desired, HasMetadata live) {
        return OwnedFields.match(tree(desired), tree(live));
    }

    private Map<?, ?> tree(HasMetadata object) {
        return serialization.convertValue(object, Map.class);
    }
}
