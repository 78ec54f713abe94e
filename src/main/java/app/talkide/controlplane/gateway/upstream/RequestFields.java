package app.talkide.controlplane.gateway.upstream;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * What every upstream client lets a caller put in a request: framing and routing fields are the client's
 * alone (a worker's header cannot set them), and a field whose name is not a token or whose value holds a
 * control character is dropped, so nothing a worker sends can split the request. The request target is
 * passed as it came, escaped only where a URI cannot hold a character.
 */
final class RequestFields {

    /** Set by the client from the call itself. */
    private static final Set<String> CLIENT_OWNED = Set.of(
            "host",
            "content-length",
            "transfer-encoding",
            "connection",
            "expect",
            "upgrade",
            "te",
            "keep-alive",
            "trailer",
            "x-api-key");

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    // Visible ASCII that java.net.URI refuses in a path or query (RFC 2396's "unwise" and "delims");
    // escaped for every client alike, so all three send the same bytes.
    private static final String UNWISE = "\"#<>\\^`{|}";

    private RequestFields() {}

    /** Whether a caller's field may be sent. */
    static boolean allowed(String name, String value) {
        return isToken(name) && isFieldValue(value) && !CLIENT_OWNED.contains(name.toLowerCase(Locale.ROOT));
    }

    /** The origin-form request target: the base URL's path, then {@code path} and {@code ?query}. */
    static String target(String pathPrefix, String path, @org.jspecify.annotations.Nullable String query) {
        StringBuilder text = new StringBuilder(pathPrefix.length() + path.length() + 64).append(pathPrefix);
        appendEscaped(text, path);
        if (query != null) {
            text.append('?');
            appendEscaped(text, query);
        }
        return text.toString();
    }

    private static void appendEscaped(StringBuilder text, String raw) {
        raw.codePoints().forEach(c -> {
            if (c > 0x20 && c < 0x7f && UNWISE.indexOf(c) < 0) {
                text.append((char) c);
            } else {
                for (byte b : Character.toString(c).getBytes(StandardCharsets.UTF_8)) {
                    text.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
                }
            }
        });
    }

    /** Whether {@code name} is an RFC 9110 token, as a field name must be. */
    static boolean isToken(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                return false;
            }
        }
        return true;
    }

    private static boolean isFieldValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f || c > 0xff) {
                return false;
            }
        }
        return true;
    }
}
