package app.talkide.controlplane.local.referenceworker;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The W3C {@code traceparent} a command may carry (docs/worker-contract.md). The reference worker makes no
 * spans of its own: it passes the command's context on, unchanged, on the calls back the turn makes.
 * Anything not in the version-00 form is dropped rather than passed on.
 */
final class Traceparent {

    static final String HEADER = "traceparent";
    private static final Pattern VALID = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    private Traceparent() {}

    static @Nullable String valid(@Nullable String value) {
        return value != null && VALID.matcher(value).matches() ? value : null;
    }
}
