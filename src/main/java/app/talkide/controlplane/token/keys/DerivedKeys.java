package app.talkide.controlplane.token.keys;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * Per-tenant-environment keys: HKDF-SHA256(master key[kid], purpose salt, info = "tenant/env").
 * Derivation is cheap but not free, and it sits on every token check, so results are memoised (under
 * a kilobyte per tenant-environment, purpose and kid, with the signer and verifier). The memo is bounded:
 * a verifier derives only for tenant-environments that exist, but the bound keeps the heap flat even if a
 * caller forgets that, and a key evicted is simply derived again.
 */
@Component
public class DerivedKeys {

    private static final int KEY_BYTES = 32;

    /** Far above tenant-environments × purposes × kids of any real installation; about 10 MB at most. */
    static final int MAX_CACHED = 10_000;

    private final MasterKeyRing ring;
    private final Cache<Slot, DerivedKey> cache =
            Caffeine.newBuilder().maximumSize(MAX_CACHED).build();

    public DerivedKeys(MasterKeyRing ring) {
        this.ring = ring;
    }

    /** The key that signs new tokens of this purpose for this tenant-environment. */
    public DerivedKey signing(KeyPurpose purpose, TenantEnvironmentId tenantEnvironment) {
        return derive(ring.active(), purpose, tenantEnvironment);
    }

    /** The key a token signed under {@code kid} verifies with, if that kid is still known. */
    public Optional<DerivedKey> verifying(String kid, KeyPurpose purpose, TenantEnvironmentId tenantEnvironment) {
        return ring.find(kid).map(master -> derive(master, purpose, tenantEnvironment));
    }

    /** Every known kid's key of this purpose, the active one first; what a worker needs to verify commands. */
    public Map<String, byte[]> allKeys(KeyPurpose purpose, TenantEnvironmentId tenantEnvironment) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        keys.put(ring.activeKid(), signing(purpose, tenantEnvironment).secret());
        for (MasterKey master : ring.all()) {
            keys.putIfAbsent(
                    master.kid(), derive(master, purpose, tenantEnvironment).secret());
        }
        return keys;
    }

    private DerivedKey derive(MasterKey master, KeyPurpose purpose, TenantEnvironmentId tenantEnvironment) {
        return cache.get(
                new Slot(master.kid(), purpose, tenantEnvironment),
                slot -> new DerivedKey(
                        slot.kid(),
                        Hkdf.derive(
                                master.secret(),
                                purpose.salt(),
                                tenantEnvironment.path().getBytes(StandardCharsets.UTF_8),
                                KEY_BYTES)));
    }

    /** How many derived keys are memoised now (bounded by {@value #MAX_CACHED}); for tests and a gauge. */
    public long cachedCount() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    private record Slot(String kid, KeyPurpose purpose, TenantEnvironmentId tenantEnvironment) {}
}
