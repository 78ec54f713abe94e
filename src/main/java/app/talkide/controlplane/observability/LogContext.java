package app.talkide.controlplane.observability;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The ids a log line carries besides its trace and span ids, as MDC entries (structured logging writes
 * them as fields). Only ids: never a token, a key or a message's text.
 */
public final class LogContext implements AutoCloseable {

    public static final String TENANT = "tenant";
    public static final String ENV = "env";
    public static final String CONVERSATION = "conversationId";
    public static final String USER = "userId";

    private final List<String> added;

    private LogContext(List<String> added) {
        this.added = added;
    }

    /**
     * Puts the ids that are known (nulls are skipped) until {@link #close()}, which removes only what
     * this call put, so an outer scope's ids survive an inner one.
     */
    public static LogContext of(
            @Nullable String tenant, @Nullable String env, @Nullable Object conversationId, @Nullable String userId) {
        List<String> added = new ArrayList<>(4);
        put(added, TENANT, tenant);
        put(added, ENV, env);
        put(added, CONVERSATION, conversationId);
        put(added, USER, userId);
        return new LogContext(added);
    }

    private static void put(List<String> added, String key, @Nullable Object value) {
        if (value != null && MDC.get(key) == null) {
            MDC.put(key, value.toString());
            added.add(key);
        }
    }

    @Override
    public void close() {
        added.forEach(MDC::remove);
    }
}
