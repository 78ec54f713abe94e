package app.talkide.controlplane.provisioning.desired;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which extra labels an operator may put on a tenant-environment's objects: syntactically valid Kubernetes
 * labels, a bounded number, and none in a prefix Kubernetes or the control plane reserves (a label such as
 * {@code app.kubernetes.io/managed-by} or {@code talkide.app/tenant} would change what the control plane
 * considers its own).
 */
final class LabelRules {

    static final int MAX_LABELS = 16;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    private static final Pattern VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final List<String> RESERVED_PREFIXES = List.of("kubernetes.io", "k8s.io", "talkide.app");

    /** The first thing wrong with these labels, or {@code null} when they may be used. */
    static @Nullable String problem(Map<String, String> labels) {
        if (labels.size() > MAX_LABELS) {
            return "extraLabels: at most " + MAX_LABELS + " labels";
        }
        for (Map.Entry<String, String> label : labels.entrySet()) {
            String key = label.getKey();
            String keyProblem = keyProblem(key);
            if (keyProblem != null) {
                return "extraLabels: " + keyProblem;
            }
            String value = label.getValue();
            if (value == null || !VALUE.matcher(value).matches()) {
                return "extraLabels: the value of '" + printable(key)
                        + "' must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a"
                        + " letter or digit";
            }
        }
        return null;
    }

    /**
     * The first syntax problem of these labels (no reserved prefixes: a node selector names labels such as
     * {@code kubernetes.io/arch}), or {@code null}.
     */
    static @Nullable String syntaxProblem(Map<String, String> labels) {
        if (labels.size() > MAX_LABELS) {
            return "at most " + MAX_LABELS + " labels";
        }
        for (Map.Entry<String, String> label : labels.entrySet()) {
            String keyProblem = keyProblem(label.getKey(), false);
            if (keyProblem != null) {
                return keyProblem;
            }
            if (label.getValue() == null || !VALUE.matcher(label.getValue()).matches()) {
                return "the value of '" + printable(label.getKey()) + "' must be at most 63 letters, digits, '-',"
                        + " '_' or '.', starting and ending with a letter or digit";
            }
        }
        return null;
    }

    private static @Nullable String keyProblem(String key) {
        return keyProblem(key, true);
    }

    private static @Nullable String keyProblem(String key, boolean refuseReserved) {
        if (key == null || key.isEmpty()) {
            return "a label key must not be empty";
        }
        int slash = key.indexOf('/');
        String name = slash < 0 ? key : key.substring(slash + 1);
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            if (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                return "the prefix of '" + printable(key) + "' must be a DNS subdomain";
            }
            for (String reserved : refuseReserved ? RESERVED_PREFIXES : List.<String>of()) {
                if (prefix.equals(reserved) || prefix.endsWith("." + reserved)) {
                    return "the prefix of '" + printable(key) + "' is reserved (" + reserved + ")";
                }
            }
        }
        if (!NAME.matcher(name).matches()) {
            return "'" + printable(key) + "' is not a valid label key";
        }
        return null;
    }

    /** Echoes hostile input only as harmless, bounded text. */
    private static String printable(String text) {
        String cleaned = text.replaceAll("[^\\x20-\\x7E]", "?");
        return cleaned.length() > 80 ? cleaned.substring(0, 80) + "…" : cleaned;
    }

    private LabelRules() {}
}
