package app.talkide.controlplane.local.referenceworker;

import app.talkide.controlplane.workercontract.CommandTokenFormat;
import app.talkide.controlplane.workercontract.CommandTokenRejected;
import app.talkide.controlplane.workercontract.CommandTokenVerifier;
import app.talkide.controlplane.workercontract.ReplayCache;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Clock;
import java.util.Locale;

/**
 * Lets a command through only with a command token signed for this tenant-environment, this method, this
 * path and this body, used once. A refusal answers 401 with the reason, never with the token.
 */
final class CommandAuthentication {

    private final CommandTokenVerifier verifier;

    CommandAuthentication(ReferenceWorkerSettings settings, Clock clock) {
        this.verifier = new CommandTokenVerifier(
                settings.commandKeys(), settings.tenantEnvironment(), clock, settings.clockSkew(), new ReplayCache());
    }

    /** True if the call may proceed; otherwise the 401 has been sent. */
    boolean admit(HttpExchange exchange, byte[] body) throws IOException {
        try {
            verifier.verify(
                    exchange.getRequestHeaders().getFirst(CommandTokenFormat.HEADER),
                    exchange.getRequestMethod(),
                    HttpExchanges.target(exchange),
                    body);
            return true;
        } catch (CommandTokenRejected rejected) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "X-Worker-Token error=\"invalid_token\"");
            HttpExchanges.problem(
                    exchange,
                    401,
                    "invalid-command-token",
                    "Invalid command token",
                    "The X-Worker-Token is missing or not acceptable ("
                            + rejected.reason().name().toLowerCase(Locale.ROOT) + ").");
            return false;
        }
    }
}
