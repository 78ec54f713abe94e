package app.talkide.controlplane.provisioning.desired;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Fields a fabric8 model did not know when it was read from JSON: fabric8 keeps them in
 * {@code additionalProperties} instead of refusing them, so a misspelt {@code nodeAfinity} would reach the
 * cluster, be dropped there, and the operator would never learn that the setting does nothing.
 */
final class UnknownFields {

    /** The path of the first unknown field inside {@code model}, or {@code null} when there is none. */
    static @Nullable String first(Object model) {
        String path = first("", model, new IdentityHashMap<>());
        return path == null ? null : path.substring(1);
    }

    private static @Nullable String first(String path, @Nullable Object value, Map<Object, Boolean> seen) {
        if (value == null || seen.put(value, true) != null) {
            return null;
        }
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                String found = first(path + "[" + i + "]", list.get(i), seen);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String found = first(path + "." + entry.getKey(), entry.getValue(), seen);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return null;
        }
        for (Class<?> type = value.getClass(); type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                Object fieldValue = read(field, value);
                if (field.getName().equals("additionalProperties")) {
                    if (fieldValue instanceof Map<?, ?> extra && !extra.isEmpty()) {
                        return path + "." + extra.keySet().iterator().next();
                    }
                } else {
                    String found = first(path + "." + field.getName(), fieldValue, seen);
                    if (found != null) {
                        return found;
                    }
                }
            }
        }
        return null;
    }

    private static @Nullable Object read(Field field, Object owner) {
        try {
            field.setAccessible(true);
            return field.get(owner);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private UnknownFields() {}
}
