package app.talkide.controlplane.token.worker;

import java.time.Instant;

/** A freshly minted WorkerToken and when it stops working. */
public record IssuedWorkerToken(String token, Instant expiresAt) {

    @Override
    public String toString() {
        return "IssuedWorkerToken[token=<redacted>, expiresAt=" + expiresAt + "]";
    }
}
