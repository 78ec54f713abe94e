package app.talkide.controlplane.gateway.handler;

import java.io.IOException;

/** Writing to the worker failed: it closed the connection. Tells the worker's side from the upstream's. */
final class ClientGone extends IOException {

    ClientGone(IOException cause) {
        super("the client went away", cause);
    }
}
