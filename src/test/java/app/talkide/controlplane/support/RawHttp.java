package app.talkide.controlplane.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

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
            for (String line : headers.split("\r\n")) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Long.parseLong(line.substring(15).trim());
                }
            }
            byte[] body = length >= 0 ? in.readNBytes((int) length) : new byte[0];
            return headers + new String(body, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
