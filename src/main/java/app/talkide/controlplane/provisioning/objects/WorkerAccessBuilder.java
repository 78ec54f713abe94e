package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.util.List;

/**
 * The worker's identity in the cluster: ServiceAccount {@code talkide-worker}, a Role that lets it run and
 * watch build Jobs in its own namespace, and the RoleBinding between them. Nothing cluster-wide.
 */
public final class WorkerAccessBuilder {

    /** The worker runs build Jobs and follows their pods and logs; the control plane must hold the same. */
    public static final List<PolicyRule> RULES = List.of(
            new PolicyRuleBuilder()
                    .withApiGroups("batch")
                    .withResources("jobs")
                    .withVerbs("create", "get", "list", "watch", "delete")
                    .build(),
            new PolicyRuleBuilder()
                    .withApiGroups("")
                    .withResources("pods", "pods/log")
                    .withVerbs("get", "list", "watch")
                    .build());

    public static ServiceAccount serviceAccount(TenantEnvironmentId id, DesiredState desired) {
        return new ServiceAccountBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER))
                .build();
    }

    public static Role role(TenantEnvironmentId id, DesiredState desired) {
        return new RoleBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER))
                .withRules(RULES)
                .build();
    }

    public static RoleBinding roleBinding(TenantEnvironmentId id, DesiredState desired) {
        return new RoleBindingBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER))
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", ManagedNames.WORKER)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(ManagedNames.WORKER)
                .withNamespace(id.namespace())
                .endSubject()
                .build();
    }

    private WorkerAccessBuilder() {}
}
