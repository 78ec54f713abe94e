package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.WorkerPod;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Refuses worker pod settings the API server would refuse (then every pass would fail on the Deployment and
 * the worker never start) or that cannot work: each with the field to blame. Affinity is Kubernetes' own
 * structure, so it is checked for fields its model does not know (a typo would otherwise be dropped
 * silently) and for the operators the scheduler accepts.
 */
final class WorkerPodRules {

    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");
    private static final Set<String> NODE_OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt");
    private static final Set<String> LABEL_OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");
    static final int MAX_ENTRIES = 16;
    static final int MAX_PROBE_TIMEOUT_SECONDS = 30;

    /** Checks what is set; unset fields follow defaults, which are checked at startup the same way. */
    static void validate(WorkerPod pod) {
        List<String> secrets = pod.imagePullSecretsOrNone();
        bounded("pod.imagePullSecrets", secrets);
        for (int i = 0; i < secrets.size(); i++) {
            dnsSubdomain("pod.imagePullSecrets[" + i + "]", secrets.get(i));
        }
        if (pod.nodeSelector() != null) {
            String problem = LabelRules.syntaxProblem(pod.nodeSelector());
            if (problem != null) {
                throw new InvalidDesiredState("pod.nodeSelector", "pod.nodeSelector: " + problem);
            }
        }
        List<Toleration> tolerations = pod.tolerationsOrNone();
        bounded("pod.tolerations", tolerations);
        for (int i = 0; i < tolerations.size(); i++) {
            toleration("pod.tolerations[" + i + "]", tolerations.get(i));
        }
        if (pod.affinity() != null) {
            affinity(pod.affinity());
        }
        if (pod.priorityClassName() != null) {
            dnsSubdomain("pod.priorityClassName", pod.priorityClassName());
        }
        if (pod.runtimeClassName() != null) {
            dnsSubdomain("pod.runtimeClassName", pod.runtimeClassName());
        }
        BigDecimal request = quantity("pod.ephemeralStorageRequest", pod.ephemeralStorageRequest());
        BigDecimal limit = quantity("pod.ephemeralStorageLimit", pod.ephemeralStorageLimit());
        BigDecimal tmp = quantity("pod.tmpSizeLimit", pod.tmpSizeLimit());
        if (request != null && limit != null && request.compareTo(limit) > 0) {
            throw new InvalidDesiredState(
                    "pod.ephemeralStorageRequest", "pod.ephemeralStorageRequest must not exceed ephemeralStorageLimit");
        }
        // /tmp and HOME each get tmpSizeLimit, and both count against the pod's local-disk limit.
        if (tmp != null && limit != null && tmp.multiply(BigDecimal.TWO).compareTo(limit) > 0) {
            throw new InvalidDesiredState(
                    "pod.tmpSizeLimit",
                    "pod.tmpSizeLimit must be at most half of ephemeralStorageLimit: /tmp and HOME each get it, and"
                            + " the kubelet evicts the pod when together they pass the limit");
        }
        Integer timeout = pod.probeTimeoutSeconds();
        if (timeout != null && (timeout < 1 || timeout > MAX_PROBE_TIMEOUT_SECONDS)) {
            throw new InvalidDesiredState(
                    "pod.probeTimeoutSeconds",
                    "pod.probeTimeoutSeconds must be between 1 and " + MAX_PROBE_TIMEOUT_SECONDS);
        }
    }

    static void toleration(String field, Toleration toleration) {
        unknownFields(field, toleration);
        String operator = toleration.getOperator() == null ? "Equal" : toleration.getOperator();
        if (!operator.equals("Equal") && !operator.equals("Exists")) {
            throw new InvalidDesiredState(field + ".operator", field + ".operator must be Equal or Exists");
        }
        String key = toleration.getKey();
        if (key != null && !key.isEmpty()) {
            String problem = LabelRules.syntaxProblem(Map.of(key, ""));
            if (problem != null) {
                throw new InvalidDesiredState(field + ".key", field + ".key: " + problem);
            }
        } else if (operator.equals("Equal")) {
            throw new InvalidDesiredState(field + ".key", field + ".key is required unless operator is Exists");
        }
        String value = toleration.getValue();
        if (operator.equals("Exists") && value != null && !value.isEmpty()) {
            throw new InvalidDesiredState(field + ".value", field + ".value must be empty when operator is Exists");
        }
        if (value != null && !value.isEmpty() && LabelRules.syntaxProblem(Map.of("k", value)) != null) {
            throw new InvalidDesiredState(field + ".value", field + ".value must be a valid label value");
        }
        String effect = toleration.getEffect();
        if (effect != null && !effect.isEmpty() && !EFFECTS.contains(effect)) {
            throw new InvalidDesiredState(
                    field + ".effect", field + ".effect must be NoSchedule, PreferNoSchedule or NoExecute");
        }
        Long seconds = toleration.getTolerationSeconds();
        if (seconds != null && (!"NoExecute".equals(effect) || seconds < 0)) {
            throw new InvalidDesiredState(
                    field + ".tolerationSeconds",
                    field + ".tolerationSeconds needs effect NoExecute and must not be negative");
        }
    }

    private static void affinity(Affinity affinity) {
        unknownFields("pod.affinity", affinity);
        if (affinity.getNodeAffinity() != null) {
            var node = affinity.getNodeAffinity();
            if (node.getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
                var terms =
                        node.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
                if (terms == null || terms.isEmpty()) {
                    throw new InvalidDesiredState(
                            "pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                            "pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution needs"
                                    + " nodeSelectorTerms");
                }
                list(terms)
                        .forEach(term -> list(term.getMatchExpressions())
                                .forEach(e -> operator("pod.affinity.nodeAffinity", e.getOperator(), NODE_OPERATORS)));
            }
            list(node.getPreferredDuringSchedulingIgnoredDuringExecution()).forEach(preferred -> {
                weight("pod.affinity.nodeAffinity", preferred.getWeight());
                if (preferred.getPreference() != null) {
                    list(preferred.getPreference().getMatchExpressions())
                            .forEach(e -> operator("pod.affinity.nodeAffinity", e.getOperator(), NODE_OPERATORS));
                }
            });
        }
        if (affinity.getPodAffinity() != null) {
            podTerms(
                    "pod.affinity.podAffinity",
                    affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution(),
                    affinity.getPodAffinity().getPreferredDuringSchedulingIgnoredDuringExecution());
        }
        if (affinity.getPodAntiAffinity() != null) {
            podTerms(
                    "pod.affinity.podAntiAffinity",
                    affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution(),
                    affinity.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution());
        }
    }

    private static void podTerms(
            String field,
            @Nullable List<io.fabric8.kubernetes.api.model.PodAffinityTerm> required,
            @Nullable List<io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm> preferred) {
        list(required).forEach(term -> podTerm(field, term));
        list(preferred).forEach(weighted -> {
            weight(field, weighted.getWeight());
            if (weighted.getPodAffinityTerm() == null) {
                throw new InvalidDesiredState(field, field + ": a preferred term needs podAffinityTerm");
            }
            podTerm(field, weighted.getPodAffinityTerm());
        });
    }

    private static void podTerm(String field, io.fabric8.kubernetes.api.model.PodAffinityTerm term) {
        if (term.getTopologyKey() == null || term.getTopologyKey().isBlank()) {
            throw new InvalidDesiredState(field, field + ": every term needs a topologyKey");
        }
        if (term.getLabelSelector() != null) {
            list(term.getLabelSelector().getMatchExpressions())
                    .forEach(e -> operator(field, e.getOperator(), LABEL_OPERATORS));
        }
    }

    private static void operator(String field, @Nullable String operator, Set<String> allowed) {
        if (operator == null || !allowed.contains(operator)) {
            throw new InvalidDesiredState(field, field + ": operator must be one of " + allowed);
        }
    }

    private static void weight(String field, @Nullable Integer weight) {
        if (weight == null || weight < 1 || weight > 100) {
            throw new InvalidDesiredState(field, field + ": weight must be between 1 and 100");
        }
    }

    private static void unknownFields(String field, Object model) {
        String unknown = UnknownFields.first(model);
        if (unknown != null) {
            throw new InvalidDesiredState(field, field + ": unknown field " + unknown);
        }
    }

    static void bounded(String field, List<?> list) {
        if (list.size() > MAX_ENTRIES) {
            throw new InvalidDesiredState(field, field + ": at most " + MAX_ENTRIES + " entries");
        }
        if (list.stream().anyMatch(element -> element == null)) {
            throw new InvalidDesiredState(field, field + ": entries must not be null");
        }
    }

    private static void dnsSubdomain(String field, @Nullable String name) {
        if (name == null || name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
            throw new InvalidDesiredState(
                    field, field + " must be a DNS subdomain name (lower case, digits, '-', '.')");
        }
    }

    private static @Nullable BigDecimal quantity(String field, @Nullable String value) {
        return value == null ? null : DesiredStateValidator.quantity(field, value);
    }

    /** Deserialized models hold {@code null} where the JSON said so. */
    private static <T> List<T> list(@Nullable List<T> list) {
        return list == null ? List.of() : list;
    }

    private WorkerPodRules() {}
}
