package app.talkide.controlplane.token.mint;

import app.talkide.controlplane.system.ProblemException;
import java.time.Duration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/** This identity token mints faster than its configured rate. */
class MintRateExceeded extends ProblemException {

    MintRateExceeded(Duration retryAfter) {
        super(
                HttpStatus.TOO_MANY_REQUESTS,
                "mint-rate-exceeded",
                "Mint rate exceeded",
                "Too many WorkerTokens minted with this identity token; retry later.");
        long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
    }
}
