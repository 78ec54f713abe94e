package app.talkide.controlplane.gateway.upstream;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;

/** Names a library client's failure before the response head the way the gateway answers it (502). */
final class UpstreamFailures {

    private UpstreamFailures() {}

    static UpstreamFailure of(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException
                    || cause instanceof UnknownHostException
                    || cause instanceof UnresolvedAddressException) {
                return new UpstreamFailure("the upstream is unreachable", false, failure);
            }
            if (cause instanceof HttpConnectTimeoutException || cause instanceof SocketTimeoutException) {
                return new UpstreamFailure("connecting to the upstream timed out", false, failure);
            }
        }
        return new UpstreamFailure("the upstream connection failed", false, failure);
    }
}
