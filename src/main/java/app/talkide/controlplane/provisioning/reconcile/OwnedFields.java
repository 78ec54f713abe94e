package app.talkide.controlplane.provisioning.reconcile;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Whether a live object still has every field the control plane sets, as the builders set it: what others add
 * is not ours (except in label selectors, owned whole), lists merged by name ({@link #NAMED_LISTS}) are owned
 * element by element, quantities compare by value. Why: docs/provisioning.md, "Reconcile".
 */
final class OwnedFields {

    /** Top-level fields that are never ours to compare. */
    private static final Set<String> NOT_OURS = Set.of("apiVersion", "kind", "status");
    /** Label selectors (Service, Deployment, NetworkPolicy peers and target): an extra key is drift. */
    static final Set<String> SELECTORS = Set.of("selector", "podSelector", "namespaceSelector");
    /**
     * Lists in the worker pod spec where each of our elements must be present, while elements others added
     * (an admission policy's toleration or pull secret) are not drift; ours that we no longer want are taken
     * out through {@link StalePlacement}.
     */
    static final Set<String> SUBSET_LISTS = Set.of("tolerations", "imagePullSecrets");

    /** Maps replaced whole by a patch and compared whole: selectors, and the worker's affinity. */
    static final Set<String> OWNED_WHOLE = Set.of("selector", "podSelector", "namespaceSelector", "affinity");

    /**
     * Lists whose elements are keyed, as strategic merge patch treats them: by {@code name}, volume mounts by
     * {@code mountPath} (one volume may be mounted twice: the session volume and its working tree).
     */
    static final Set<String> NAMED_LISTS = Set.of("containers", "env", "volumes", "volumeMounts");

    /** Parents under which string values are resource quantities. */
    private static final Set<String> QUANTITY_PARENTS =
            Set.of("requests", "limits", "hard", "default", "defaultRequest", "max", "min");
    /** Keys whose own value is a quantity ({@code emptyDir.sizeLimit}). */
    private static final Set<String> QUANTITY_KEYS = Set.of("sizeLimit");

    /** Objects as generic trees ({@code Map}/{@code List}/scalars), e.g. from the client's serialization. */
    static boolean match(Map<?, ?> desired, Map<?, ?> live) {
        for (Map.Entry<?, ?> field : desired.entrySet()) {
            String key = String.valueOf(field.getKey());
            if (NOT_OURS.contains(key)) {
                continue;
            }
            if (!matchValue(key, field.getValue(), live.get(key), false)) {
                return false;
            }
        }
        return true;
    }

    /** @param whole whether {@code wanted} is (inside) a selector, where the live value may have nothing more */
    private static boolean matchValue(String key, @Nullable Object wanted, @Nullable Object live, boolean whole) {
        whole = whole || OWNED_WHOLE.contains(key);
        if (QUANTITY_KEYS.contains(key) && isScalar(wanted)) {
            return sameQuantity(wanted, live);
        }
        if (wanted == null) {
            return true;
        }
        if (live == null) {
            return wanted instanceof Map<?, ?> map && map.isEmpty() || wanted instanceof List<?> list && list.isEmpty();
        }
        if (wanted instanceof Map<?, ?> wantedMap) {
            if (!(live instanceof Map<?, ?> liveMap)) {
                return false;
            }
            if (whole
                    && liveMap.entrySet().stream()
                            .anyMatch(entry -> !wantedMap.containsKey(entry.getKey()) && !isEmpty(entry.getValue()))) {
                return false;
            }
            for (Map.Entry<?, ?> entry : wantedMap.entrySet()) {
                String childKey = String.valueOf(entry.getKey());
                boolean quantities = QUANTITY_PARENTS.contains(key);
                Object liveValue = liveMap.get(entry.getKey());
                boolean same = quantities && isScalar(entry.getValue())
                        ? sameQuantity(entry.getValue(), liveValue)
                        : matchValue(childKey, entry.getValue(), liveValue, whole);
                if (!same) {
                    return false;
                }
            }
            return true;
        }
        if (wanted instanceof List<?> wantedList && NAMED_LISTS.contains(key) && live instanceof List<?> liveList) {
            for (Object element : wantedList) {
                if (!matchValue(key, element, named(key, liveList, name(key, element)), whole)) {
                    return false;
                }
            }
            return true;
        }
        if (wanted instanceof List<?> wantedList && SUBSET_LISTS.contains(key) && live instanceof List<?> liveList) {
            return wantedList.stream().allMatch(element -> contains(key, liveList, element));
        }
        if (wanted instanceof List<?> wantedList) {
            if (!(live instanceof List<?> liveList) || liveList.size() != wantedList.size()) {
                return false;
            }
            for (int i = 0; i < wantedList.size(); i++) {
                if (!matchValue(key, wantedList.get(i), liveList.get(i), whole)) {
                    return false;
                }
            }
            return true;
        }
        return String.valueOf(wanted).equals(String.valueOf(live));
    }

    /** Whether {@code live} holds an element matching {@code wanted} on the fields we set. */
    static boolean contains(String key, List<?> live, @Nullable Object wanted) {
        return live.stream().anyMatch(element -> matchValue(key, wanted, element, false));
    }

    static @Nullable Object name(String list, @Nullable Object element) {
        return element instanceof Map<?, ?> map ? map.get(list.equals("volumeMounts") ? "mountPath" : "name") : null;
    }

    static @Nullable Object named(String key, List<?> list, @Nullable Object name) {
        if (name == null) {
            return null;
        }
        return list.stream().filter(e -> name.equals(name(key, e))).findFirst().orElse(null);
    }

    private static boolean isEmpty(@Nullable Object value) {
        return value == null
                || value instanceof Map<?, ?> map && map.isEmpty()
                || value instanceof List<?> list && list.isEmpty();
    }

    private static boolean isScalar(@Nullable Object value) {
        return !(value instanceof Map<?, ?>) && !(value instanceof List<?>);
    }

    private static boolean sameQuantity(@Nullable Object wanted, @Nullable Object live) {
        if (wanted == null || live == null) {
            return wanted == live;
        }
        if (String.valueOf(wanted).equals(String.valueOf(live))) {
            return true;
        }
        try {
            BigDecimal a = Quantity.getAmountInBytes(new Quantity(String.valueOf(wanted)));
            BigDecimal b = Quantity.getAmountInBytes(new Quantity(String.valueOf(live)));
            return a.compareTo(b) == 0;
        } catch (IllegalArgumentException | ArithmeticException notQuantities) {
            return false;
        }
    }

    private OwnedFields() {}
}
