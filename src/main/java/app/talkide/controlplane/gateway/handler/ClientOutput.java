package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/** The response to the worker: notes when the first byte went out, and turns write failures into {@link ClientGone}. */
final class ClientOutput {

    private final HttpServletResponse response;
    private final GatewayCall call;
    private OutputStream out;

    ClientOutput(HttpServletResponse response, GatewayCall call) {
        this.response = response;
        this.call = call;
    }

    /** Writes and flushes at once: every event reaches the worker before the next one is read. */
    void send(byte[] bytes, int offset, int length) throws ClientGone {
        try {
            if (out == null) {
                out = response.getOutputStream();
            }
            out.write(bytes, offset, length);
            out.flush();
            call.firstByteSent();
        } catch (ClientGone gone) {
            throw gone;
        } catch (IOException e) {
            throw new ClientGone(e);
        }
    }
}
