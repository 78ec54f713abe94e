package app.talkide.controlplane.gateway.upstream;

import java.nio.charset.StandardCharsets;

/** The request line and header fields of one POST, written by hand for {@link OwnUpstreamClient}. */
final class RequestHead {

    private final StringBuilder text = new StringBuilder(512);

    RequestHead(UpstreamOrigin origin, String path, @org.jspecify.annotations.Nullable String query) {
        text.append("POST ")
                .append(RequestFields.target(origin.pathPrefix(), path, query))
                .append(" HTTP/1.1\r\nHost: ")
                .append(origin.hostHeader())
                .append("\r\n");
    }

    /** Adds a caller's field; false (and nothing added) if the client owns it or it is not a valid field. */
    boolean header(String name, String value) {
        if (!RequestFields.allowed(name, value)) {
            return false;
        }
        field(name, value);
        return true;
    }

    byte[] finish(String apiKey, int contentLength) {
        field("x-api-key", apiKey);
        field("content-length", Integer.toString(contentLength));
        text.append("\r\n");
        return text.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private void field(String name, String value) {
        text.append(name).append(": ").append(value).append("\r\n");
    }
}
