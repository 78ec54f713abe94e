package app.talkide.controlplane.provisioning.reconcile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * RFC 7386 JSON Merge Patch on generic trees, for patches that carry no {@code null} (nothing to remove); maps
 * under the keys in {@code replacedWhole} are replaced like values instead of merged (label selectors, where a
 * key left over from the target would change what the selector picks). Lists under {@link OwnedFields#SUBSET_LISTS}
 * get our elements added to theirs. Lists under
 * {@link OwnedFields#NAMED_LISTS} are merged by element name, as Kubernetes' strategic merge would: our
 * elements replace theirs of the same name, elements others added (a webhook's sidecar) stay.
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
            } else if (OwnedFields.SUBSET_LISTS.contains(key)
                    && value instanceof List<?> patchList
                    && result.get(key) instanceof List<?> targetList) {
                // Ours added to theirs: an admission policy's toleration stays (StalePlacement removes ours).
                List<Object> union = new ArrayList<>(targetList);
                patchList.stream()
                        .filter(element -> !OwnedFields.contains(key, targetList, element))
                        .forEach(union::add);
                result.put(key, union);
            } else if (OwnedFields.NAMED_LISTS.contains(key)
                    && value instanceof List<?> patchList
                    && result.get(key) instanceof List<?> targetList) {
                result.put(key, byName(key, targetList, patchList, replacedWhole));
            } else {
                result.put(key, value);
            }
        });
        return result;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> byName(String key, List<?> target, List<?> patch, Set<String> replacedWhole) {
        List<Object> result = new ArrayList<>();
        for (Object element : target) {
            Object ours = OwnedFields.named(key, patch, OwnedFields.name(key, element));
            if (ours instanceof Map<?, ?> oursMap && element instanceof Map<?, ?> theirs) {
                result.add(apply((Map<String, Object>) theirs, (Map<String, Object>) oursMap, replacedWhole));
            } else if (ours == null) {
                result.add(element);
            }
        }
        for (Object element : patch) {
            if (OwnedFields.named(key, target, OwnedFields.name(key, element)) == null) {
                result.add(element);
            }
        }
        return result;
    }

    private MergePatch() {}
}
