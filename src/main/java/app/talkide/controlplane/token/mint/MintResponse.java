package app.talkide.controlplane.token.mint;

import java.time.Instant;

/** A minted WorkerToken, when it expires, and its lifetime in seconds. */
record MintResponse(String token, Instant expiresAt, long expiresIn) {

    @Override
    public String toString() {
        return "MintResponse[token=<redacted>, expiresAt=" + expiresAt + "]";
    }
}
