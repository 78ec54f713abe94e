package app.talkide.controlplane.provisioning.reconcile;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * RFC 7386 JSON Merge Patch on generic trees, for patches that carry no {@code null} (nothing to remove); maps
 * under the keys in {@code replacedWhole} are replaced like values instead of merged (label selectors, where a
 * key left over from the target would change what the selector picks).
 */
final class MergePatch {

    @SuppressWarnings("unchecked")
    static Map<String, Object> apply(Map<String, Object> target, Map<String, Object> patch, Set<String> replacedWhole) {
        Map<String, Object> result = new LinkedHashMap<>(target);
        patch.forEach((key, value) -> {
            if (!replacedWhole.contains(key)
                    && value instanceof Map<?, ?> patchMap
                    && result.get(key) instanceof Map<?, ?> targetMap) {
                result.put(key, apply((Map<String, Object>) targetMap, (Map<String, Object>) patchMap, replacedWhole));
            } else {
                result.put(key, value);
            }
        });
        return result;
    }

    private MergePatch() {}
}
