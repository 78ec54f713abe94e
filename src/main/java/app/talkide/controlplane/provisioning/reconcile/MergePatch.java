package app.talkide.controlplane.provisioning.reconcile;

import java.util.LinkedHashMap;
import java.util.Map;

/** RFC 7386 JSON Merge Patch on generic trees, for patches that carry no {@code null} (nothing to remove). */
final class MergePatch {

    @SuppressWarnings("unchecked")
    static Map<String, Object> apply(Map<String, Object> target, Map<String, Object> patch) {
        Map<String, Object> result = new LinkedHashMap<>(target);
        patch.forEach((key, value) -> {
            if (value instanceof Map<?, ?> patchMap && result.get(key) instanceof Map<?, ?> targetMap) {
                result.put(key, apply((Map<String, Object>) targetMap, (Map<String, Object>) patchMap));
            } else {
                result.put(key, value);
            }
        });
        return result;
    }

    private MergePatch() {}
}
