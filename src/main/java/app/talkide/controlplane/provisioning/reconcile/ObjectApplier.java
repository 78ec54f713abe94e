package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ManagedNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The one apply step: compares a desired object with its live version and writes only when they differ on
 * the fields the control plane owns: create when missing, patch when changed (replace a RoleBinding whose
 * immutable {@code roleRef} changed). The patched object is the live
 * one with the desired one merged in as RFC 7386 would (maps merged, lists and values replaced: containers,
 * rules and ports are ours whole, and so are label selectors, while labels or annotations others add survive), sent as the JSON Patch
 * between the two. A JSON Patch rather than the merge patch itself, because the CRUD mock server used in the
 * tests appends lists on a merge patch, and every production path must run there too.
 */
final class ObjectApplier {

    enum Outcome {
        UNCHANGED,
        CREATED,
        PATCHED,
        /** Deleted and created again: it differed on a field the API server does not let anyone change. */
        REPLACED,
        /** Being deleted by someone; recreated once it is gone. */
        TERMINATING;

        boolean wrote() {
            return this == CREATED || this == PATCHED || this == REPLACED;
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
        Set<String> staleLabels = StaleExtraLabels.of(desired, live);
        Map<String, Object> stalePlacement = StalePlacement.of(desired, live);
        if (matches(desired, live) && staleLabels.isEmpty() && stalePlacement.isEmpty()) {
            return Outcome.UNCHANGED;
        }
        if (desired instanceof RoleBinding binding
                && live instanceof RoleBinding liveBinding
                && !Objects.equals(binding.getRoleRef(), liveBinding.getRoleRef())) {
            // A RoleBinding recreated by hand with another role: roleRef is immutable, so a patch would be
            // refused on every pass. Bound to another role it grants too little or too much, wrong either
            // way, so it is replaced; the worker lacks its Job permissions only between the two calls.
            client.resource(live).delete();
            client.resource(desired).create();
            return Outcome.REPLACED;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> merged =
                MergePatch.apply(tree(live), (Map<String, Object>) tree(desired), OwnedFields.OWNED_WHOLE);
        StaleExtraLabels.remove(merged, staleLabels, desired);
        StalePlacement.remove(merged, stalePlacement);
        Map<String, String> desiredAnnotations = desired.getMetadata().getAnnotations();
        if ((desiredAnnotations == null || !desiredAnnotations.containsKey(ManagedNames.PLACEMENT_ANNOTATION))
                && merged.get("metadata") instanceof Map<?, ?> metadata
                && metadata.get("annotations") instanceof Map<?, ?> annotations) {
            annotations.remove(ManagedNames.PLACEMENT_ANNOTATION);
        }
        HasMetadata patched = serialization.convertValue(merged, live.getClass());
        client.resource(live).patch(PatchContext.of(PatchType.JSON), patched);
        return Outcome.PATCHED;
    }

    boolean matches(HasMetadata desired, HasMetadata live) {
        return OwnedFields.match(tree(desired), tree(live));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> tree(HasMetadata object) {
        return serialization.convertValue(object, Map.class);
    }
}
