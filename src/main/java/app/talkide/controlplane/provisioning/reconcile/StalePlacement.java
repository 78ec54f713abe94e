package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ManagedNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Worker pod placement the control plane set before and the desired state no longer has. Placement is owned
 * as a subset (a node selector key or toleration an admission policy adds is not drift, so it causes no
 * patch and no roll on every pass); the annotation {@code talkide.app/placement} on the live Deployment says
 * what was ours, and what is no longer desired is taken off the pod template.
 */
final class StalePlacement {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private StalePlacement() {}

    /** By field: node selector keys, toleration and pull-secret elements, or the whole affinity / class name. */
    static Map<String, Object> of(HasMetadata desired, HasMetadata live) {
        Map<String, Object> before = recorded(live);
        Map<String, Object> now = recorded(desired);
        Map<String, Object> stale = new LinkedHashMap<>();
        before.forEach((key, was) -> {
            Object wanted = now.get(key);
            if (was instanceof Map<?, ?> selector && key.equals("nodeSelector")) {
                List<Object> keys = new ArrayList<>(selector.keySet());
                if (wanted instanceof Map<?, ?> still) {
                    keys.removeAll(still.keySet());
                }
                if (!keys.isEmpty()) {
                    stale.put(key, keys);
                }
            } else if (was instanceof List<?> elements) {
                List<?> still = wanted instanceof List<?> list ? list : List.of();
                List<Object> gone = new ArrayList<>(elements);
                gone.removeAll(still);
                if (!gone.isEmpty()) {
                    stale.put(key, gone);
                }
            } else if (wanted == null) {
                stale.put(key, was);
            }
        });
        return stale;
    }

    /** Takes the stale placement off the pod template of a merged Deployment tree. */
    @SuppressWarnings("unchecked")
    static void remove(Map<String, Object> merged, Map<String, Object> stale) {
        if (stale.isEmpty()
                || !(merged.get("spec") instanceof Map<?, ?> spec)
                || !(spec.get("template") instanceof Map<?, ?> template)
                || !(template.get("spec") instanceof Map<?, ?> podSpec)) {
            return;
        }
        Map<String, Object> pod = (Map<String, Object>) podSpec;
        stale.forEach((key, gone) -> {
            Object live = pod.get(key);
            if (key.equals("nodeSelector") && live instanceof Map<?, ?> selector) {
                selector.keySet().removeAll((List<?>) gone);
            } else if (gone instanceof List<?> elements && live instanceof List<?> list) {
                List<Object> kept = new ArrayList<>(list);
                kept.removeIf(element ->
                        elements.stream().anyMatch(ours -> OwnedFields.contains(key, List.of(element), ours)));
                pod.put(key, kept);
            } else {
                pod.remove(key);
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> recorded(HasMetadata object) {
        Map<String, String> annotations = object.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(ManagedNames.PLACEMENT_ANNOTATION);
        return value == null ? Map.of() : parse(value);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> parse(@Nullable String json) {
        try {
            Map<String, Object> tree = JSON.unmarshal(json, Map.class);
            return tree == null ? Map.of() : tree;
        } catch (RuntimeException unreadable) {
            // Edited by hand into something else: nothing is known to be ours, so nothing is removed.
            return Map.of();
        }
    }
}
