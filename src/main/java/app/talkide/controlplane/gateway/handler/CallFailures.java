package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.AnthropicErrors;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the worker gets when a call ends in a way no handler step answered itself. */
final class CallFailures {

    private static final Logger log = LoggerFactory.getLogger(CallFailures.class);

    private CallFailures() {}

    /**
     * A connection broke where no handler step expected it: the worker's (an aborted upload, a hang-up
     * while an error was written) or the upstream's after its headers (count_tokens). Neither is the
     * gateway's bug, so no stack trace; the worker gets a 502 if it still listens.
     */
    static void brokenConnection(GatewayCall call, HttpServletResponse response, IOException broken) {
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
    }

    /** A bug: logged with its stack trace under the request id the worker is told to quote. */
    static void unexpected(GatewayCall call, HttpServletResponse response, RuntimeException bug) throws IOException {
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
    }
}
