package app.talkide.controlplane.local.simulator;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/** The two lifetimes a prompt-cache entry can have, as {@code cache_control.ttl} names them. */
enum CacheTtl {
    FIVE_MINUTES("5m", Duration.ofMinutes(5)),
    ONE_HOUR("1h", Duration.ofHours(1));

    private final String wire;
    private final Duration lifetime;

    CacheTtl(String wire, Duration lifetime) {
        this.wire = wire;
        this.lifetime = lifetime;
    }

    Duration lifetime() {
        return lifetime;
    }

    /**
     * The breakpoint a block (or tool) sets with {@code cache_control}, or {@code null} when it sets none.
     *
     * @param where the block's path in the request, for the error message
     */
    static @Nullable CacheTtl of(JsonNode block, String where) {
        JsonNode control = block.get("cache_control");
        if (control == null || control.isNull()) {
            return null;
        }
        if (!"ephemeral".equals(control.path("type").asString(""))) {
            throw ApiError.invalidRequest(where + ".cache_control.type: Input should be 'ephemeral'");
        }
        JsonNode ttl = control.get("ttl");
        if (ttl == null || ttl.isNull()) {
            return FIVE_MINUTES;
        }
        for (CacheTtl candidate : values()) {
            if (candidate.wire.equals(ttl.asString(""))) {
                return candidate;
            }
        }
        throw ApiError.invalidRequest(where + ".cache_control.ttl: Input should be '5m' or '1h'");
    }
}
