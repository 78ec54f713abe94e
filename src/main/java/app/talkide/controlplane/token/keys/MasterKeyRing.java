package app.talkide.controlplane.token.keys;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The master keys in use: the active one signs, every one verifies. Rotating means adding a new kid,
 * making it active, and removing the old kid once no token signed with it can still be alive.
 */
public final class MasterKeyRing {

    private final Map<String, MasterKey> byKid;
    private final MasterKey active;

    MasterKeyRing(List<MasterKey> keys, String activeKid) {
        if (keys.isEmpty()) {
            throw new InvalidMasterKeys("no master keys are configured");
        }
        Map<String, MasterKey> map = new LinkedHashMap<>();
        for (MasterKey key : keys) {
            if (map.put(key.kid(), key) != null) {
                throw new InvalidMasterKeys("kid '" + key.kid() + "' is listed twice");
            }
        }
        this.byKid = Map.copyOf(map);
        this.active = Optional.ofNullable(byKid.get(activeKid))
                .orElseThrow(
                        () -> new InvalidMasterKeys("the active kid '" + activeKid + "' is not among the master keys"));
    }

    static MasterKeyRing parse(List<String> entries, String activeKid) {
        return new MasterKeyRing(entries.stream().map(MasterKey::parse).toList(), activeKid);
    }

    MasterKey active() {
        return active;
    }

    public String activeKid() {
        return active.kid();
    }

    Optional<MasterKey> find(String kid) {
        return Optional.ofNullable(byKid.get(kid));
    }

    Collection<MasterKey> all() {
        return byKid.values();
    }
}
