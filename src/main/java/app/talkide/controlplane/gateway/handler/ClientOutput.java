package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/** The response to the worker: notes when the first byte went out, and turns write failures into {@link ClientGone}. */
final class ClientOutput {

    private final HttpServletResponse response;
    private final GatewayCall call;
    private OutputStream out;
    private boolean pending;

    ClientOutput(HttpServletResponse response, GatewayCall call) {
        this.response = response;
        this.call = call;
    }

    /** Writes and flushes at once. */
    void send(byte[] bytes, int offset, int length) throws ClientGone {
        write(bytes, offset, length);
        flush();
    }

    /**
     * Writes without flushing: the caller flushes once for everything that arrived together (one read
     * of the upstream), before it reads again, so no event waits for the next read.
     */
    void write(byte[] bytes, int offset, int length) throws ClientGone {
        try {
            if (out == null) {
                out = response.getOutputStream();
            }
            out.write(bytes, offset, length);
            pending = true;
        } catch (ClientGone gone) {
            throw gone;
        } catch (IOException e) {
            throw new ClientGone(e);
        }
    }

    /**
     * Writes a response's final bytes and ends the response: the bytes and the end of the body go out in
     * one write, not a flush for the bytes and another for the end.
     */
    void end(byte[] bytes, int offset, int length) throws ClientGone {
        write(bytes, offset, length);
        push(out::close);
    }

    /** Sends what was written; nothing to do when nothing was. */
    void flush() throws ClientGone {
        if (pending) {
            push(out::flush);
        }
    }

    /** Flushes or closes the written bytes onto the wire; the first time, the call's first byte went out. */
    private void push(Push sending) throws ClientGone {
        try {
            sending.push();
            pending = false;
            call.firstByteSent();
        } catch (ClientGone gone) {
            throw gone;
        } catch (IOException e) {
            throw new ClientGone(e);
        }
    }

    @FunctionalInterface
    private interface Push {
        void push() throws IOException;
    }
}
