package app.talkide.controlplane.gateway.upstream;

import java.io.IOException;
import java.net.ProtocolException;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The status line and header fields of one HTTP/1.1 response, read strictly (RFC 9112): a malformed or
 * oversized head is a broken upstream, never guessed at. Interim 1xx responses are skipped.
 */
record ResponseHead(int status, HttpHeaders headers, boolean keepAlive) {

    /** Status line and fields together; the API's heads are well under 2 KB. */
    static final int MAX_BYTES = 64 * 1024;

    private static final int MAX_FIELDS = 200;

    static ResponseHead read(UpstreamConnection connection) throws IOException {
        while (true) {
            ResponseHead head = readOne(connection);
            if (head.status >= 200) {
                return head;
            }
            if (head.status == 101) {
                throw new ProtocolException("the upstream switched protocols unasked");
            }
        }
    }

    private static ResponseHead readOne(UpstreamConnection connection) throws IOException {
        Lines lines = new Lines(connection);
        String statusLine = lines.next();
        if (statusLine.length() < 12
                || !statusLine.startsWith("HTTP/1.")
                || statusLine.charAt(8) != ' '
                || (statusLine.length() > 12 && statusLine.charAt(12) != ' ')) {
            throw new ProtocolException("the upstream's status line is not HTTP/1.x");
        }
        boolean http11 = statusLine.charAt(7) == '1';
        int status = parseStatus(statusLine.substring(9, 12));
        Map<String, List<String>> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        int count = 0;
        for (String line = lines.next(); !line.isEmpty(); line = lines.next()) {
            if (++count > MAX_FIELDS) {
                throw new ProtocolException("the upstream sent more than " + MAX_FIELDS + " header fields");
            }
            int colon = line.indexOf(':');
            if (colon <= 0 || !RequestFields.isToken(line.substring(0, colon))) {
                // Also refuses obsolete line folding (a line starting with white space): RFC 9112 §5.2.
                throw new ProtocolException("the upstream sent a malformed header field");
            }
            String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
            fields.computeIfAbsent(name, n -> new ArrayList<>(1))
                    .add(line.substring(colon + 1).strip());
        }
        boolean close = fields.getOrDefault("connection", List.of()).stream()
                .flatMap(value -> Arrays.stream(value.split(",")))
                .anyMatch(token -> token.strip().equalsIgnoreCase("close"));
        return new ResponseHead(status, HttpHeaders.of(fields, (name, value) -> true), http11 && !close);
    }

    private static int parseStatus(String digits) throws ProtocolException {
        for (int i = 0; i < 3; i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                throw new ProtocolException("the upstream's status code is not three digits");
            }
        }
        int status = Integer.parseInt(digits);
        if (status < 100) {
            throw new ProtocolException("the upstream's status code is out of range");
        }
        return status;
    }

    /** Lines of the head, ended by LF with an optional CR before it, within {@link #MAX_BYTES} in all. */
    private static final class Lines {

        private final UpstreamConnection connection;
        private byte[] line = new byte[256];
        private int total;

        Lines(UpstreamConnection connection) {
            this.connection = connection;
        }

        String next() throws IOException {
            int length = 0;
            while (true) {
                int b = connection.readHeadByte();
                if (++total > MAX_BYTES) {
                    throw new ProtocolException("the upstream's response head is longer than " + MAX_BYTES + " bytes");
                }
                if (b == '\n') {
                    if (length > 0 && line[length - 1] == '\r') {
                        length--;
                    }
                    return new String(line, 0, length, StandardCharsets.ISO_8859_1);
                }
                if (b == 0 || (length > 0 && line[length - 1] == '\r')) {
                    // A NUL or a bare CR: RFC 9112 lets a recipient refuse both, and smuggling lives in them.
                    throw new ProtocolException("the upstream's response head holds a NUL or a bare CR");
                }
                if (length == line.length) {
                    line = Arrays.copyOf(line, line.length * 2);
                }
                line[length++] = (byte) b;
            }
        }
    }
}
