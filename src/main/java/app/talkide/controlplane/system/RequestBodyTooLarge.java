package app.talkide.controlplane.system;

import java.io.IOException;

/**
 * A body passed {@code talkide.api.max-request-size} while being read. An {@link IOException}, so it
 * travels through whatever reads the stream (Jackson, the servlet container) and is answered 413.
 */
final class RequestBodyTooLarge extends IOException {

    RequestBodyTooLarge(long max) {
        super("request body larger than " + max + " bytes", null);
    }
}
