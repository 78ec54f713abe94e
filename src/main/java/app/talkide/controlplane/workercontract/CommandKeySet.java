package app.talkide.controlplane.workercontract;

import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A worker's command keys by kid, the signing (active) one first. Its text form is what the worker's
 * Secret holds under {@code command-key}: {@code kid:base64url[,kid:base64url...]}. Holding several lets
 * the worker keep verifying through a master-key rotation.
 */
public final class CommandKeySet {

    private final Map<String, byte[]> keys;

    public CommandKeySet(Map<String, byte[]> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a command key set needs at least one key");
        }
        Map<String, byte[]> copy = new LinkedHashMap<>();
        keys.forEach((kid, key) -> copy.put(kid, key.clone()));
        this.keys = Collections.unmodifiableMap(copy);
    }

    public static CommandKeySet parse(String text) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        for (String entry : text.split(",")) {
            int colon = entry.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("a command key entry must look like kid:base64url");
            }
            keys.put(
                    entry.substring(0, colon).trim(),
                    Base64.getUrlDecoder().decode(entry.substring(colon + 1).trim()));
        }
        return new CommandKeySet(keys);
    }

    public String format() {
        return keys.entrySet().stream()
                .map(e -> e.getKey() + ":"
                        + Base64.getUrlEncoder().withoutPadding().encodeToString(e.getValue()))
                .collect(Collectors.joining(","));
    }

    public Optional<byte[]> key(String kid) {
        return Optional.ofNullable(keys.get(kid)).map(byte[]::clone);
    }

    @Override
    public String toString() {
        return "CommandKeySet[kids=" + keys.keySet() + ", keys=<redacted>]";
    }
}
