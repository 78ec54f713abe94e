package app.talkide.controlplane.gateway.upstream;

import java.io.InputStream;
import java.net.http.HttpHeaders;
import java.util.Locale;

/**
 * The upstream's answer once its headers arrived: the body is read as it comes. Closing the body before
 * its end cancels the call (its connection is closed); reading it to the end gives the connection back
 * for the next call.
 */
public record UpstreamResponse(int statusCode, HttpHeaders headers, InputStream body) {

    public boolean succeeded() {
        return statusCode >= 200 && statusCode < 300;
    }

    public boolean isEventStream() {
        return headers.firstValue("content-type")
                .map(type -> type.toLowerCase(Locale.ROOT).startsWith("text/event-stream"))
                .orElse(false);
    }
}
