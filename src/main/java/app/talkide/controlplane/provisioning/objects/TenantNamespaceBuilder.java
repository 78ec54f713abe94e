package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The namespace {@code {tenant}-{env}}. Its managed-by label is how the control plane recognises it as its
 * own; a namespace of that name without it is never adopted. Pod Security "baseline" is enforced: the
 * worker passes "restricted", but Kaniko build Jobs need to run as root.
 */
public final class TenantNamespaceBuilder {

    static final Map<String, String> POD_SECURITY =
            Map.of("pod-security.kubernetes.io/enforce", "baseline", "pod-security.kubernetes.io/warn", "restricted");

    public static Namespace build(TenantEnvironmentId id, DesiredState desired) {
        Map<String, String> labels = new LinkedHashMap<>(POD_SECURITY);
        labels.putAll(ManagedMetadata.labels(id, desired));
        return new NamespaceBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withName(id.namespace())
                        .withLabels(labels)
                        .withAnnotations(ManagedMetadata.annotations(desired))
                        .build())
                .build();
    }

    private TenantNamespaceBuilder() {}
}
