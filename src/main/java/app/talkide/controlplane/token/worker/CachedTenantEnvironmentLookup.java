package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * {@link KnownTenantEnvironments} from the database, remembered for a few seconds, misses too, so a flood
 * of tokens naming made-up tenant-environments costs one primary-key look-up per name per TTL, and the
 * memory for the answers is bounded. A tenant-environment created a moment ago may be reported missing
 * for up to the TTL if a bogus token named it first; no real worker can hold a token for it before it
 * exists, so that costs nothing.
 */
@Component
class CachedTenantEnvironmentLookup implements KnownTenantEnvironments {

    static final int MAX_ENTRIES = 10_000;
    static final Duration TTL = Duration.ofSeconds(5);

    private final TenantEnvironments tenantEnvironments;
    private final Cache<TenantEnvironmentId, Boolean> answers =
            Caffeine.newBuilder().maximumSize(MAX_ENTRIES).expireAfterWrite(TTL).build();

    CachedTenantEnvironmentLookup(TenantEnvironments tenantEnvironments) {
        this.tenantEnvironments = tenantEnvironments;
    }

    @Override
    public boolean exists(TenantEnvironmentId tenantEnvironment) {
        return answers.get(
                tenantEnvironment,
                id -> tenantEnvironments
                        .find(id)
                        .map(TenantEnvironment::status)
                        .filter(status -> status != TenantEnvironmentStatus.DELETED)
                        .isPresent());
    }
}
