package app.talkide.controlplane.gateway.upstream;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * The request line and header fields of one POST, written by hand. Framing and routing fields are the
 * client's alone (a worker's header cannot set them), and a field whose name is not a token or whose
 * value holds a control character is dropped, so nothing a worker sends can split the request.
 */
final class RequestHead {

    /** Set here from the call itself; the JDK client refused them from callers for the same reason. */
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

    private final StringBuilder text = new StringBuilder(512);

    RequestHead(UpstreamOrigin origin, String path, String query) {
        text.append("POST ").append(origin.pathPrefix());
        appendTarget(path);
        if (query != null) {
            text.append('?');
            appendTarget(query);
        }
        text.append(" HTTP/1.1\r\nHost: ").append(origin.hostHeader()).append("\r\n");
    }

    /** Adds a caller's field; false (and nothing added) if the client owns it or it is not a valid field. */
    boolean header(String name, String value) {
        if (!isToken(name) || !isFieldValue(value) || CLIENT_OWNED.contains(name.toLowerCase(Locale.ROOT))) {
            return false;
        }
        field(name, value);
        return true;
    }

    byte[] finish(String apiKey, int contentLength) {
        field("x-api-key", apiKey);
        field("content-length", Integer.toString(contentLength));
        text.append("\r\n");
        return text.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private void field(String name, String value) {
        text.append(name).append(": ").append(value).append("\r\n");
    }

    /** Path and query as they came, except that anything outside visible ASCII is percent-encoded. */
    private void appendTarget(String raw) {
        raw.codePoints().forEach(c -> {
            if (c > 0x20 && c < 0x7f) {
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
