package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.AnthropicErrors;
import app.talkide.controlplane.gateway.filter.GatewayPaths;
import app.talkide.controlplane.observability.Traces;
import app.talkide.controlplane.token.WorkerPrincipal;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import org.eclipse.jetty.ee11.servlet.ServletContextRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Everything under {@code /api/internal/gateway/anthropic}: the WorkerToken is already verified (the
 * internal security chain), the path is matched exactly here, and anything but the two forwarded calls
 * is a 404 in Anthropic's shape that never reaches the upstream.
 */
@RestController
class GatewayController {

    private static final Logger log = LoggerFactory.getLogger(GatewayController.class);

    private final MessagesHandler messages;
    private final CountTokensHandler countTokens;
    private final GatewayMetrics metrics;
    private final Clock clock;
    private final Traces traces;

    GatewayController(
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

    @RequestMapping(GatewayPaths.PREFIX + "/**")
    void handle(
            @AuthenticationPrincipal WorkerPrincipal worker, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        long start = System.nanoTime();
        GatewayPaths path = GatewayPaths.match(request);
        if (path == null) {
            AnthropicErrors.write(
                    response,
                    404,
                    "not_found_error",
                    "Not found: the gateway serves POST /v1/messages and POST /v1/messages/count_tokens.",
                    "gw_not_found");
            return;
        }
        GatewayCall call = new GatewayCall(worker, path, clock.instant(), start, arrivedNanos(request));
        response.setHeader("x-talkide-request-id", call.requestId());
        if (!forwardableQuery(request.getQueryString())) {
            // One line, no stack trace and not the query itself: it is the caller's mistake, not ours.
            log.info("Gateway call {} refused: its query string is not a valid URI query", call.requestId());
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
            // A connection broke where no handler step expected it: the worker's (an aborted upload, a
            // hang-up while an error was written) or the upstream's after its headers (count_tokens).
            // Neither is the gateway's bug, so no stack trace; the worker gets a 502 if it still listens.
            log.debug("Gateway call {} ended on a broken connection: {}", call.requestId(), broken.toString());
            if (!response.isCommitted()) {
                response.reset();
                response.setHeader("x-talkide-request-id", call.requestId());
                try {
                    AnthropicErrors.write(
                            response,
                            502,
                            "api_error",
                            "The connection to the Anthropic API broke before the answer was complete.",
                            call.requestId());
                } catch (IOException gone) {
                    // The worker is gone as well.
                }
            }
        } catch (RuntimeException bug) {
            log.error("Gateway call {} failed unexpectedly", call.requestId(), bug);
            if (!response.isCommitted()) {
                response.reset();
                AnthropicErrors.write(
                        response,
                        500,
                        "api_error",
                        "The gateway failed unexpectedly; quote request id " + call.requestId() + ".",
                        call.requestId());
            }
        } finally {
            GatewayCallLog.ended(call);
            GatewayCallLog.tagSpan(traces, call);
            metrics.completed(call.endpoint(), call.outcomeTag(), call.elapsed());
            var firstByte = call.timeToFirstByte();
            if (firstByte != null) {
                metrics.firstByte(call.endpoint(), firstByte);
            }
            var before = call.beforeUpstream();
            var relay = call.toFirstByte();
            if (before != null && relay != null) {
                metrics.overhead(call.endpoint(), "before_upstream", before);
                metrics.overhead(call.endpoint(), "relay", relay);
                var arrival = call.arrival();
                if (arrival != null) {
                    metrics.overhead(call.endpoint(), "arrival", arrival);
                }
                var budget = call.budget();
                if (budget != null) {
                    metrics.overhead(call.endpoint(), "budget", budget);
                }
            }
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

    /** When Jetty had the request's headers: the time before the controller is part of what the worker waits. */
    private static long arrivedNanos(HttpServletRequest request) {
        try {
            return ServletContextRequest.getServletContextRequest(request).getHeadersNanoTime();
        } catch (IllegalStateException notJetty) {
            return 0; // a mock request in a test: the phase is unknown, not a reason to fail the call
        }
    }
}
