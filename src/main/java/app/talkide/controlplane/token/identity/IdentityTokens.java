package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Issues, verifies, revokes and rotates identity tokens.
 *
 * <p>Verification sits on every mint, so look-ups are cached by hash for {@code identity-cache-ttl}
 * (default 5 s), misses included. A revocation or rotation on this replica clears the cache at once;
 * other replicas notice within that TTL. Validity is re-checked against the clock on every hit, so a
 * token rotated out stops working exactly at the end of its grace period.
 */
@Service
public class IdentityTokens {

    private final IdentityTokenRepository repository;
    private final TokenProperties properties;
    private final Clock clock;
    private final Cache<String, Optional<IdentityTokenRecord>> byHash;

    IdentityTokens(IdentityTokenRepository repository, TokenProperties properties, Clock clock) {
        this.repository = repository;
        this.properties = properties;
        this.clock = clock;
        this.byHash = Caffeine.newBuilder()
                .maximumSize(50_000)
                .expireAfterWrite(properties.identityCacheTtl())
                .build();
    }

    @Transactional
    public IssuedIdentityToken issue(TenantEnvironmentId tenantEnvironment) {
        Instant now = clock.instant();
        String value = IdentityTokenValue.generate();
        IdentityTokenRecord record = new IdentityTokenRecord(
                UUID.randomUUID(), tenantEnvironment, now, now.plus(properties.identityTokenLifetime()), null);
        repository.insert(record, IdentityTokenValue.hash(value));
        return new IssuedIdentityToken(record.id(), tenantEnvironment, value, record.expiresAt());
    }

    /** The identity behind a presented token, if it is one of ours and still valid now. */
    public Optional<VerifiedIdentity> verify(@Nullable String presented) {
        if (presented == null || !IdentityTokenValue.looksValid(presented)) {
            return Optional.empty();
        }
        String hash = IdentityTokenValue.hash(presented);
        Optional<IdentityTokenRecord> record = byHash.get(hash, repository::findByHash);
        Instant now = clock.instant();
        return record.filter(r -> r.validAt(now)).map(r -> new VerifiedIdentity(r.id(), r.tenantEnvironment()));
    }

    /** Revokes one token now. Returns false for an unknown id. */
    @Transactional
    public boolean revoke(UUID id) {
        boolean known = repository.find(id).isPresent();
        repository.revoke(id, clock.instant());
        byHash.invalidateAll();
        return known;
    }

    /** Revokes every token of a tenant-environment now (deprovisioning, compromise). */
    @Transactional
    public void revokeAll(TenantEnvironmentId tenantEnvironment) {
        Instant now = clock.instant();
        repository.findByTenantEnvironment(tenantEnvironment).forEach(token -> repository.revoke(token.id(), now));
        byHash.invalidateAll();
    }

    /**
     * Issues a new token and lets every other token of the tenant-environment keep working for the grace
     * period, so the worker can switch over without a failed mint.
     */
    @Transactional
    public Rotation rotate(TenantEnvironmentId tenantEnvironment) {
        IssuedIdentityToken next = issue(tenantEnvironment);
        Instant graceEndsAt = clock.instant().plus(properties.rotationGrace());
        repository.revokeOthers(tenantEnvironment, next.id(), graceEndsAt);
        byHash.invalidateAll();
        return new Rotation(next, graceEndsAt);
    }

    /**
     * Ends a rotation once {@code current} is in the worker's hands: every token of the tenant-environment
     * issued before it keeps working for the grace period, then stops. Tokens issued after it are left
     * alone (a rotation that started later owns them). Idempotent: an earlier revocation time stays.
     *
     * @return when the retired tokens stop working
     */
    @Transactional
    public Instant retireIssuedBefore(TenantEnvironmentId tenantEnvironment, UUID current) {
        IdentityTokenRecord kept = repository.find(current).orElseThrow();
        Instant graceEndsAt = clock.instant().plus(properties.rotationGrace());
        repository.revokeIssuedBefore(tenantEnvironment, kept.id(), kept.createdAt(), graceEndsAt);
        byHash.invalidateAll();
        return graceEndsAt;
    }

    public List<IdentityTokenRecord> list(TenantEnvironmentId tenantEnvironment) {
        return repository.findByTenantEnvironment(tenantEnvironment);
    }

    /** Live tokens that have used up the given share of their lifetime (e.g. 0.8) and are not yet rotated. */
    public List<IdentityTokenRecord> dueForRotation(double lifetimeShare) {
        Instant now = clock.instant();
        return repository.findLiveUnrevoked(now).stream()
                .filter(token -> {
                    Duration lifetime = Duration.between(token.createdAt(), token.expiresAt());
                    Instant due = token.createdAt().plusMillis((long) (lifetime.toMillis() * lifetimeShare));
                    return !now.isBefore(due);
                })
                .toList();
    }

    /** The outcome of a rotation: the new token, and when the replaced ones stop working. */
    public record Rotation(IssuedIdentityToken token, Instant graceEndsAt) {}
}
