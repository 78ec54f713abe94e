package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/**
 * Whether a worker may still act for a conversation's owner (still a member, tenant-environment not closing),
 * asked at mint and on every WorkerToken use. A yes is remembered per replica for at most {@link #MAX_AGE},
 * forgotten at once on a change ({@link StandingChanges}); a no never is. See docs/security.md.
 */
@Component
public class OwnerStanding {

    /** The longest a revocation can go unnoticed on another replica, if its notification was lost. */
    public static final Duration MAX_AGE = Duration.ofSeconds(5);

    static final int MAX_ENTRIES = 100_000;

    private static final Set<TenantEnvironmentStatus> GONE =
            Set.of(TenantEnvironmentStatus.DELETING, TenantEnvironmentStatus.DELETED);

    private final Memberships memberships;
    private final TenantEnvironments tenantEnvironments;

    /**
     * Counts forgets. A yes read from the database while a forget ran may predate the revocation's commit;
     * comparing the count before the read and after caching the yes catches that, and drops it again.
     */
    private final AtomicLong forgets = new AtomicLong();

    private final Cache<Standing, Boolean> inGoodStanding = Caffeine.newBuilder()
            .maximumSize(MAX_ENTRIES)
            .expireAfterWrite(MAX_AGE)
            .build();

    OwnerStanding(Memberships memberships, TenantEnvironments tenantEnvironments) {
        this.memberships = memberships;
        this.tenantEnvironments = tenantEnvironments;
    }

    public boolean workerMayActFor(ConversationScope scope) {
        Standing key = new Standing(scope.tenantEnvironment(), scope.ownerUserId());
        if (inGoodStanding.getIfPresent(key) != null) {
            return true;
        }
        long before = forgets.get();
        boolean yes = lookUp(key);
        if (yes) {
            inGoodStanding.put(key, Boolean.TRUE);
            if (forgets.get() != before) {
                inGoodStanding.invalidate(key);
            }
        }
        return yes;
    }

    /** Uncached: the database's answer now. */
    private boolean lookUp(Standing key) {
        return memberships.isMember(key.tenantEnvironment(), key.userId())
                && tenantEnvironments
                        .find(key.tenantEnvironment())
                        .map(TenantEnvironment::status)
                        .filter(status -> !GONE.contains(status))
                        .isPresent();
    }

    void forget(TenantEnvironmentId tenantEnvironment, String userId) {
        forgets.incrementAndGet();
        inGoodStanding.invalidate(new Standing(tenantEnvironment, userId));
    }

    void forget(TenantEnvironmentId tenantEnvironment) {
        forgets.incrementAndGet();
        inGoodStanding.asMap().keySet().removeIf(key -> key.tenantEnvironment().equals(tenantEnvironment));
    }

    /** After notifications may have been missed (the LISTEN connection broke). */
    void forgetAll() {
        forgets.incrementAndGet();
        inGoodStanding.invalidateAll();
    }

    private record Standing(TenantEnvironmentId tenantEnvironment, String userId) {}
}
