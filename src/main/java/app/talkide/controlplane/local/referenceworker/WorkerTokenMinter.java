package app.talkide.controlplane.local.referenceworker;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Trades the worker's long-lived identity token for a WorkerToken scoped to one conversation
 * ({@code POST /api/v1/worker-gateway/token/mint}). Called for every gateway request: a minted token lives
 * 120 s, so a fresh one is never expired and a leaked one is worth little.
 */
final class WorkerTokenMinter {

    /** The control plane refused or could not be asked; {@code status} 0 means unreachable. */
    static final class MintFailed extends Exception {
        final int status;

        MintFailed(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    private final HttpClient http;
    private final URI mintUrl;
    private final String identityToken;

    WorkerTokenMinter(HttpClient http, URI controlPlane, String identityToken) {
        this.http = http;
        this.mintUrl = controlPlane.resolve("/api/v1/worker-gateway/token/mint");
        this.identityToken = identityToken;
    }

    /** Mints for the conversation; a {@code traceparent} makes the mint part of that trace. */
    String mint(UUID conversationId, @Nullable String traceparent) throws MintFailed, InterruptedException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(mintUrl)
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + identityToken)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"conversationId\":\"" + conversationId + "\"}"));
        if (traceparent != null) {
            builder.header(Traceparent.HEADER, traceparent);
        }
        HttpRequest request = builder.build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new MintFailed(0, "the control plane's mint endpoint is unreachable");
        }
        if (response.statusCode() != 200) {
            throw new MintFailed(response.statusCode(), "minting a WorkerToken failed with " + response.statusCode());
        }
        JsonNode token = HttpExchanges.JSON.readTree(response.body()).get("token");
        if (token == null || !token.isString()) {
            throw new MintFailed(502, "the mint endpoint answered without a token");
        }
        return token.asString();
    }
}
