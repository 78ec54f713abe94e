package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * Whether a worker may still act for a conversation's owner: the owner is still a member of the
 * tenant-environment and the tenant-environment is not being torn down. Asked at mint and on every
 * WorkerToken use, uncached (two primary-key look-ups), so a removed member's budget cannot be spent
 * by the worker a moment after the removal.
 */
@Component
public class OwnerStanding {

    private static final Set<TenantEnvironmentStatus> GONE =
            Set.of(TenantEnvironmentStatus.DELETING, TenantEnvironmentStatus.DELETED);

    private final Memberships memberships;
    private final TenantEnvironments tenantEnvironments;

    OwnerStanding(Memberships memberships, TenantEnvironments tenantEnvironments) {
        this.memberships = memberships;
        this.tenantEnvironments = tenantEnvironments;
    }

    public boolean workerMayActFor(ConversationScope scope) {
        return memberships.isMember(scope.tenantEnvironment(), scope.ownerUserId())
                && tenantEnvironments
                        .find(scope.tenantEnvironment())
                        .map(TenantEnvironment::status)
                        .filter(status -> !GONE.contains(status))
                        .isPresent();
    }
}
