package app.talkide.controlplane.system;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;

/**
 * What to do with the body of a request refused before anyone read it. Answering while body bytes are
 * still unread makes Jetty close the connection after the response, possibly after the client already
 * sent its next request on it (which then fails with no response at all). A small body is read and
 * dropped so the connection stays usable; a large one is not read — an unauthenticated caller must not
 * make us read megabytes — and the response says the connection closes.
 */
public final class UnreadBody {

    static final int DRAIN_LIMIT = 64 * 1024;

    private UnreadBody() {}

    public static void drainOrClose(HttpServletRequest request, HttpServletResponse response) {
        long declared = request.getContentLengthLong();
        if (declared > DRAIN_LIMIT) {
            response.setHeader("Connection", "close");
            return;
        }
        byte[] buffer = new byte[8192];
        long read = 0;
        try {
            InputStream body = request.getInputStream();
            for (int n = body.read(buffer); n != -1; n = body.read(buffer)) {
                read += n;
                if (read > DRAIN_LIMIT) {
                    response.setHeader("Connection", "close");
                    return;
                }
            }
        } catch (IOException | IllegalStateException unreadable) {
            response.setHeader("Connection", "close");
        }
    }
}
