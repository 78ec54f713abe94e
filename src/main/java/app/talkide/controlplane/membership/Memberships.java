package app.talkide.controlplane.membership;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.time.Clock;
import java.util.List;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Who may use which tenant-environment. Asked on every browser call that touches a conversation and
 * deliberately not cached: a revoked membership takes effect on the very next call (one primary-key
 * look-up).
 */
@Service
public class Memberships {

    private final MembershipRepository repository;
    private final TenantEnvironments tenantEnvironments;
    private final ApplicationEventPublisher events;
    private final Clock clock;

    Memberships(
            MembershipRepository repository,
            TenantEnvironments tenantEnvironments,
            ApplicationEventPublisher events,
            Clock clock) {
        this.repository = repository;
        this.tenantEnvironments = tenantEnvironments;
        this.events = events;
        this.clock = clock;
    }

    /** Makes the user a member; idempotent (the first grant's time is kept). The tenant-environment must exist. */
    @Transactional
    public Membership grant(TenantEnvironmentId tenantEnvironment, String userId) {
        UserIds.requireValid(userId);
        tenantEnvironments.get(tenantEnvironment);
        repository.insertIfAbsent(tenantEnvironment, userId, clock.instant());
        return repository.find(tenantEnvironment, userId).orElseThrow();
    }

    /**
     * Ends the membership; false if there was none. The user's conversations stay, but they cannot read
     * them; {@link MembershipRevoked} tells whatever they hold open (browser streams) to end.
     */
    @Transactional
    public boolean revoke(TenantEnvironmentId tenantEnvironment, String userId) {
        boolean revoked = repository.delete(tenantEnvironment, userId);
        if (revoked) {
            events.publishEvent(new MembershipRevoked(tenantEnvironment, userId));
        }
        return revoked;
    }

    public boolean isMember(TenantEnvironmentId tenantEnvironment, String userId) {
        return repository.find(tenantEnvironment, userId).isPresent();
    }

    /** The tenant-environments the user belongs to, by name. */
    public List<TenantEnvironmentId> tenantEnvironmentsOf(String userId) {
        return repository.byUser(userId).stream()
                .map(Membership::tenantEnvironment)
                .toList();
    }

    /** The members of a tenant-environment, by user id; 404 if the tenant-environment does not exist. */
    public List<Membership> membersOf(TenantEnvironmentId tenantEnvironment) {
        tenantEnvironments.get(tenantEnvironment);
        return repository.byTenantEnvironment(tenantEnvironment);
    }
}
