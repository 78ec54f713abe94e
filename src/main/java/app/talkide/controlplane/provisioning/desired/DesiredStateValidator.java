package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Quota;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Resources;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Refuses a desired state the API server would refuse, or that would make the control plane's objects
 * misbehave, before it is stored: the operator hears it at once as a 400, not later as a degraded status.
 */
final class DesiredStateValidator {

    /** A Kubernetes quantity: a decimal with an optional SI, binary or exponent suffix. */
    private static final Pattern QUANTITY =
            Pattern.compile("\\+?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+|[numkMGTPE]|[KMGTPE]i)?");
    /** An image reference: registry/path:tag or @digest, no spaces, no shell characters. */
    private static final Pattern IMAGE = Pattern.compile("[a-z0-9][a-z0-9._/:@-]{0,254}", Pattern.CASE_INSENSITIVE);

    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static void validate(DesiredStateSpec spec) {
        if (spec.workerImage() != null) {
            image("workerImage", spec.workerImage());
        }
        if (spec.resources() != null) {
            validate(spec.resources());
        }
        if (spec.storageClass() != null
                && (spec.storageClass().length() > 253
                        || !DNS_SUBDOMAIN.matcher(spec.storageClass()).matches())) {
            throw new InvalidDesiredState("storageClass", "storageClass must be a DNS subdomain name");
        }
        if (spec.storageSize() != null) {
            quantity("storageSize", spec.storageSize());
        }
        if (spec.quota() != null) {
            validate(spec.quota());
        }
        if (spec.egress() != null) {
            validate(spec.egress());
        }
        if (spec.extraLabels() != null) {
            String problem = LabelRules.problem(spec.extraLabels());
            if (problem != null) {
                throw new InvalidDesiredState("extraLabels", problem);
            }
        }
        if (spec.pod() != null) {
            WorkerPodRules.validate(spec.pod());
        }
        if (spec.buildPlacement() != null) {
            BuildPlacementRules.validate(spec.buildPlacement());
        }
    }

    /**
     * The configured defaults must pass the same rules (the application does not start otherwise): a bad
     * default would reach every tenant-environment that did not choose otherwise.
     */
    static void validateDefaults(ProvisioningProperties.Defaults defaults) {
        try {
            validate(new DesiredStateSpec(
                    defaults.workerImage(),
                    defaults.resources(),
                    defaults.storageClass(),
                    defaults.storageSize(),
                    defaults.quota(),
                    null,
                    null,
                    defaults.pod()));
        } catch (InvalidDesiredState e) {
            throw new IllegalStateException(
                    "talkide.provisioning.defaults: " + e.getBody().getDetail(), e);
        }
    }

    /**
     * A reference with a fixed tag or a digest: without one, or with {@code latest}, the tag moves, and the pods
     * of one Deployment (the old and the surge pod of a roll, a pod rescheduled later) run different code.
     */
    private static void image(String field, String image) {
        if (!IMAGE.matcher(image).matches()) {
            throw new InvalidDesiredState(field, field + " must be an image reference such as registry/worker:1.2");
        }
        String lastPart = image.substring(image.lastIndexOf('/') + 1);
        boolean digest = image.contains("@");
        int colon = lastPart.lastIndexOf(':');
        if (!digest && (colon < 0 || lastPart.substring(colon + 1).equals("latest"))) {
            throw new InvalidDesiredState(
                    field, field + " must name a fixed tag (not latest) or a digest, such as registry/worker:1.2");
        }
    }

    /** Kept small: every rule becomes a NetworkPolicy peer, evaluated by the network plugin per packet. */
    private static final int MAX_EGRESS_RULES = 32;

    private static void validate(java.util.List<EgressRule> egress) {
        if (egress.size() > MAX_EGRESS_RULES) {
            throw new InvalidDesiredState("egress", "egress: at most " + MAX_EGRESS_RULES + " rules");
        }
        for (EgressRule rule : egress) {
            Cidr cidr = rule.cidr() == null ? null : Cidr.parse(rule.cidr());
            if (cidr == null) {
                throw new InvalidDesiredState(
                        "egress.cidr", "egress.cidr must be an IP block such as 203.0.113.0/24 or 2001:db8::/32");
            }
            if (cidr.isLinkLocal()) {
                throw new InvalidDesiredState(
                        "egress.cidr",
                        "egress.cidr must not be link-local (169.254.0.0/16, fe80::/10): "
                                + "that is where cloud metadata services answer");
            }
            if (rule.ports().size() > 16
                    || rule.ports().stream().anyMatch(port -> port == null || port < 1 || port > 65535)) {
                throw new InvalidDesiredState(
                        "egress.ports", "egress.ports must be at most 16 TCP ports between 1 and 65535");
            }
        }
    }

    /**
     * A rolling update (token rotation rolls the worker) starts the new pod before the old one stops
     * ({@code maxSurge 1}, {@code maxUnavailable 0}): the quota must hold two worker pods, or the roll stalls
     * with the new pod refused and the old token expiring. Checked on the resolved state, since either side
     * may come from the defaults.
     */
    static void surgeFits(DesiredState desired) {
        Resources worker = desired.resources();
        Quota quota = desired.quota();
        BigDecimal two = BigDecimal.valueOf(2);
        boolean fits = amount(worker.cpuLimit()).multiply(two).compareTo(amount(quota.cpu())) <= 0
                && amount(worker.memoryLimit()).multiply(two).compareTo(amount(quota.memory())) <= 0
                && quota.pods() >= 2;
        if (!fits) {
            throw new InvalidDesiredState(
                    "quota",
                    "quota must hold two worker pods (cpu and memory at least twice the "
                            + "worker's limits, pods at least 2): a rolling update starts the new pod before the old stops");
        }
    }

    private static BigDecimal amount(String quantity) {
        return Quantity.getAmountInBytes(new Quantity(quantity));
    }

    private static void validate(Resources resources) {
        BigDecimal cpuRequest = quantity("resources.cpuRequest", resources.cpuRequest());
        BigDecimal memoryRequest = quantity("resources.memoryRequest", resources.memoryRequest());
        BigDecimal cpuLimit = quantity("resources.cpuLimit", resources.cpuLimit());
        BigDecimal memoryLimit = quantity("resources.memoryLimit", resources.memoryLimit());
        if (cpuRequest.compareTo(cpuLimit) > 0 || memoryRequest.compareTo(memoryLimit) > 0) {
            throw new InvalidDesiredState("resources", "resources: a request must not exceed its limit");
        }
    }

    private static void validate(Quota quota) {
        quantity("quota.cpu", quota.cpu());
        quantity("quota.memory", quota.memory());
        quantity("quota.storage", quota.storage());
        if (quota.pods() < 1 || quota.jobs() < 1) {
            throw new InvalidDesiredState("quota", "quota.pods and quota.jobs must be at least 1");
        }
    }

    /** The quantity's value; refuses missing, malformed and non-positive ones. */
    static BigDecimal quantity(String field, @Nullable String value) {
        if (value == null || value.length() > 32 || !QUANTITY.matcher(value).matches()) {
            throw new InvalidDesiredState(field, field + " must be a Kubernetes quantity such as 500m, 2 or 4Gi");
        }
        BigDecimal amount = Quantity.getAmountInBytes(new Quantity(value));
        if (amount.signum() <= 0) {
            throw new InvalidDesiredState(field, field + " must be positive");
        }
        return amount;
    }

    private DesiredStateValidator() {}
}
