package app.talkide.controlplane.token.keys;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Per-tenant-environment keys: HKDF-SHA256(master key[kid], purpose salt, info = "tenant/env").
 * Derivation is cheap but not free, and it sits on every token check, so results are memoised (a few
 * dozen bytes per tenant-environment, purpose and kid).
 */
@Component
public class DerivedKeys {

    private static final int KEY_BYTES = 32;

    private final MasterKeyRing ring;
    private final Map<Slot, DerivedKey> cache = new ConcurrentHashMap<>();

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
        return cache.computeIfAbsent(
                new Slot(master.kid(), purpose, tenantEnvironment),
                slot -> new DerivedKey(
                        slot.kid(),
                        Hkdf.derive(
                                master.secret(),
                                purpose.salt(),
                                tenantEnvironment.path().getBytes(StandardCharsets.UTF_8),
                                KEY_BYTES)));
    }

    private record Slot(String kid, KeyPurpose purpose, TenantEnvironmentId tenantEnvironment) {}
}
