package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.token.WorkerPrincipal;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import java.time.Clock;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * {@link WorkerTokenVerifier} with a memory: a worker sends the same token on every call until it mints
 * the next, so a token that verified is remembered by its exact string until it expires, and its next use
 * skips the parsing and the signature. Only tokens that verified enter, at most {@link #MAX_ENTRIES}, none
 * past its {@code exp}, so garbage cannot grow it. The checks that can change while a token lives (its
 * tenant-environment still exists here; scope and owner standing by the caller) still run on every use.
 */
@Component
public class VerifiedWorkerTokens {

    static final int MAX_ENTRIES = 10_000;

    private final WorkerTokenVerifier verifier;
    private final KnownTenantEnvironments known;
    private final Clock clock;
    private final Cache<String, WorkerPrincipal> verified;

    VerifiedWorkerTokens(WorkerTokenVerifier verifier, KnownTenantEnvironments known, Clock clock) {
        this.verifier = verifier;
        this.known = known;
        this.clock = clock;
        this.verified = Caffeine.newBuilder()
                .maximumSize(MAX_ENTRIES)
                .expireAfter(Expiry.creating((String token, WorkerPrincipal principal) -> untilExpiry(principal)))
                .build();
    }

    public WorkerPrincipal verify(@Nullable String token) throws WorkerTokenRejected {
        if (token == null) {
            return verifier.verify(null);
        }
        WorkerPrincipal remembered = verified.getIfPresent(token);
        // The cache's own timer runs on the system ticker; the application's clock decides validity.
        if (remembered != null
                && clock.instant().isBefore(remembered.expiresAt())
                && known.exists(remembered.tenantEnvironment())) {
            return remembered;
        }
        WorkerPrincipal principal = verifier.verify(token);
        if (!untilExpiry(principal).isZero()) {
            verified.put(token, principal);
        }
        return principal;
    }

    /** How many tokens are remembered now (for tests and the bounds they check). */
    long size() {
        verified.cleanUp();
        return verified.estimatedSize();
    }

    private Duration untilExpiry(WorkerPrincipal principal) {
        Duration left = Duration.between(clock.instant(), principal.expiresAt());
        return left.isNegative() ? Duration.ZERO : left;
    }
}
