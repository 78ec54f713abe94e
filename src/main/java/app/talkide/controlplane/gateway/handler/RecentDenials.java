package app.talkide.controlplane.gateway.handler;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * Users whose last call on this replica was denied. Their next calls reserve first and only then start
 * the upstream call: a user at a limit, whose worker keeps calling, would otherwise make the gateway take
 * an upstream connection for every call only to close it again. An allowed call clears the mark.
 */
@Component
class RecentDenials {

    private static final Duration REMEMBERED = Duration.ofSeconds(30);

    private final Cache<String, Boolean> users = Caffeine.newBuilder()
            .maximumSize(10_000)
            .expireAfterWrite(REMEMBERED)
            .build();

    boolean deniedRecently(String userId) {
        return users.getIfPresent(userId) != null;
    }

    void denied(String userId) {
        users.put(userId, Boolean.TRUE);
    }

    void allowed(String userId) {
        users.invalidate(userId);
    }
}
