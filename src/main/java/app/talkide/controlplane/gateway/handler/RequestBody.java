package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** Reads a request body into memory, refusing (413) anything over the configured size before reading it. */
final class RequestBody {

    private RequestBody() {}

    static byte[] read(HttpServletRequest request, long max) throws GatewayError, IOException {
        long declared = request.getContentLengthLong();
        if (declared > max) {
            throw tooLarge(max);
        }
        InputStream in = request.getInputStream();
        byte[] body = new byte[(int) Math.max(declared, 0) + 1];
        int length = 0;
        while (true) {
            if (length == body.length) {
                if (length > max) {
                    throw tooLarge(max);
                }
                body = Arrays.copyOf(body, (int) Math.min(Math.max(body.length * 2L, 8192), max + 1));
            }
            int read = in.read(body, length, body.length - length);
            if (read < 0) {
                break;
            }
            length += read;
        }
        if (length > max) {
            throw tooLarge(max);
        }
        return length == body.length ? body : Arrays.copyOf(body, length);
    }

    private static GatewayError tooLarge(long max) {
        return new GatewayError(
                413, "request_too_large", "Request body is larger than the gateway's limit of " + max + " bytes.");
    }
}
