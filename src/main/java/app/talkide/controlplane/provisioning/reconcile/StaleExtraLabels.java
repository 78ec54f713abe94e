package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ManagedNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Extra labels an operator removed from the desired state. Labels are owned as a subset, so a removed one
 * would otherwise stay forever; the annotation {@code talkide.app/extra-labels} on the live object says which
 * labels were ours, and those no longer desired are taken off the object (and the worker's pod template).
 */
final class StaleExtraLabels {

    private StaleExtraLabels() {}

    /** Label keys the live object got from extra labels that the desired object no longer has. */
    static Set<String> of(HasMetadata desired, HasMetadata live) {
        Set<String> stale = keys(live.getMetadata().getAnnotations());
        stale.removeAll(keys(desired.getMetadata().getAnnotations()));
        return stale;
    }

    /** Removes the stale labels and, when no extra labels are left, the annotation from a merged tree. */
    @SuppressWarnings("unchecked")
    static void remove(Map<String, Object> merged, Set<String> stale, HasMetadata desired) {
        Map<String, Object> metadata = (Map<String, Object>) merged.get("metadata");
        removeFrom(metadata, stale);
        if (keys(desired.getMetadata().getAnnotations()).isEmpty()
                && metadata.get("annotations") instanceof Map<?, ?> annotations) {
            annotations.remove(ManagedNames.EXTRA_LABELS_ANNOTATION);
        }
        if (merged.get("spec") instanceof Map<?, ?> spec
                && spec.get("template") instanceof Map<?, ?> template
                && template.get("metadata") instanceof Map<?, ?> podMetadata) {
            removeFrom((Map<String, Object>) podMetadata, stale);
        }
    }

    private static void removeFrom(Map<String, Object> metadata, Set<String> stale) {
        if (metadata.get("labels") instanceof Map<?, ?> labels) {
            labels.keySet().removeAll(stale);
        }
    }

    private static Set<String> keys(@Nullable Map<String, String> annotations) {
        String value = annotations == null ? null : annotations.get(ManagedNames.EXTRA_LABELS_ANNOTATION);
        Set<String> keys = new LinkedHashSet<>();
        if (value != null && !value.isBlank()) {
            keys.addAll(Arrays.asList(value.split(",")));
        }
        return keys;
    }
}
