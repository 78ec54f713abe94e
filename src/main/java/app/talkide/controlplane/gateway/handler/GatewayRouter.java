package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.AnthropicErrors;
import app.talkide.controlplane.observability.Traces;
import app.talkide.controlplane.system.UnreadBody;
import app.talkide.controlplane.token.WorkerPrincipal;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sends an authorized gateway request to the handler of its path: anything but the two forwarded calls
 * is a 404 in Anthropic's shape, a query that cannot be forwarded a 400, and every call that got a
 * request id is logged, tagged on its span and measured once it has ended, however it ended.
 */
@Component
public class GatewayRouter {

    private static final Logger log = LoggerFactory.getLogger(GatewayRouter.class);

    private final MessagesHandler messages;
    private final CountTokensHandler countTokens;
    private final GatewayMetrics metrics;
    private final Clock clock;
    private final Traces traces;

    GatewayRouter(
            MessagesHandler messages,
            CountTokensHandler countTokens,
            GatewayMetrics metrics,
            Clock clock,
            Traces traces) {
        this.messages = messages;
        this.countTokens = countTokens;
        this.metrics = metrics;
        this.clock = clock;
        this.traces = traces;
    }

    /** @param arrivedNanos when the server had the request's headers ({@link System#nanoTime()}), 0 if unknown */
    public void route(
            WorkerPrincipal worker, HttpServletRequest request, HttpServletResponse response, long arrivedNanos)
            throws IOException {
        long start = System.nanoTime();
        GatewayPaths path = GatewayPaths.match(request);
        if (path == null) {
            // Read a small unread body first: Jetty would otherwise close the connection after the answer,
            // maybe after the worker already sent its next call on it (which then gets no answer at all).
            UnreadBody.drainOrClose(request, response);
            AnthropicErrors.notFound(response);
            return;
        }
        GatewayCall call = new GatewayCall(worker, path, clock.instant(), start, arrivedNanos);
        response.setHeader("x-talkide-request-id", call.requestId());
        if (!forwardableQuery(request.getQueryString())) {
            // One line, no stack trace and not the query itself: it is the caller's mistake, not ours.
            log.info("Gateway call {} refused: its query string is not a valid URI query", call.requestId());
            UnreadBody.drainOrClose(request, response);
            AnthropicErrors.write(
                    response,
                    400,
                    "invalid_request_error",
                    "The query string is not valid: characters such as | { } \" \\ ^ < > must be percent-encoded,"
                            + " and % must start a valid escape.",
                    call.requestId());
            return;
        }
        try {
            switch (path) {
                case MESSAGES -> messages.handle(call, request, response);
                case COUNT_TOKENS -> countTokens.handle(call, request, response);
            }
        } catch (IOException broken) {
            CallFailures.brokenConnection(call, response, broken);
        } catch (RuntimeException bug) {
            CallFailures.unexpected(call, response, bug);
        } finally {
            GatewayCallLog.ended(call);
            GatewayCallLog.tagSpan(traces, call);
            metrics.ended(call);
        }
    }

    /** Whether the raw query can be put into the upstream URI as it is (it is forwarded unchanged). */
    private static boolean forwardableQuery(@Nullable String query) {
        if (query == null) {
            return true;
        }
        try {
            new URI("http://h/?" + query);
            return true;
        } catch (URISyntaxException | IllegalArgumentException invalid) {
            return false;
        }
    }
}
