package app.talkide.controlplane.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import org.awaitility.Awaitility;

/**
 * HTTP/1.1 on a bare socket, for what real clients refuse to send: URIs with raw {@code |} or {@code %zz},
 * or a request whose body is declared but not (yet) sent. Every read times out, so a server that waits
 * for a body fails the test instead of hanging it.
 */
public final class RawHttp implements AutoCloseable {

    private final Socket socket;

    public RawHttp(int port, Duration readTimeout) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout((int) readTimeout.toMillis());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends these bytes as they are (request line, headers, as much body as the test wants). */
    public RawHttp send(String raw) {
        try {
            socket.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits before the next send, as a client whose body comes after its headers. */
    public RawHttp pause(Duration duration) {
        Awaitility.await().pollDelay(duration).atMost(duration.plusSeconds(5)).until(() -> true);
        return this;
    }

    /** Status line, headers and a body of the declared length (or up to the close). */
    public String response() {
        try {
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.write(b);
            }
            String headers = head.toString(StandardCharsets.ISO_8859_1);
            long length = -1;
            boolean chunked = false;
            for (String line : headers.split("\r\n")) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(line.substring(15).trim());
                }
                chunked |= lower.startsWith("transfer-encoding:") && lower.contains("chunked");
            }
            byte[] body = chunked ? chunks(in) : length >= 0 ? in.readNBytes((int) length) : new byte[0];
            return headers + new String(body, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A chunked body, up to and including its last (empty) chunk and the line after it. */
    private static byte[] chunks(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
                size > 0;
                size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
            body.write(in.readNBytes(size));
            line(in); // the CRLF after the chunk
        }
        line(in); // the empty line after the last chunk (no trailers are sent here)
        return body.toByteArray();
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    /** The status code of {@link #response()}'s text. */
    public static int status(String response) {
        return Integer.parseInt(response.substring(9, 12));
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test socket
        }
    }
}
