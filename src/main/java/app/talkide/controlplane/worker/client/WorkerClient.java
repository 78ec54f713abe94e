package app.talkide.controlplane.worker.client;

import app.talkide.controlplane.observability.Traces;
import app.talkide.controlplane.token.command.CommandTokenSigner;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.workercontract.CommandTokenFormat;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Commands a worker over HTTP (docs/worker-contract.openapi.yaml). Every call carries a command token
 * bound to its method, path and exact body bytes, so what is signed is byte for byte what is sent.
 */
@Component
public class WorkerClient {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final CommandTokenSigner signer;
    private final WorkerProperties properties;
    private final HttpClient http;
    private final Traces traces;

    WorkerClient(CommandTokenSigner signer, WorkerProperties properties, Traces traces) {
        this.signer = signer;
        this.properties = properties;
        this.traces = traces;
        this.http = HttpClient.newBuilder()
                // Workers speak plain HTTP/1.1; no h2c upgrade dance on every call.
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(properties.connectTimeout())
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    /** {@code POST /sessions}; true if the worker created the session, false if it existed. */
    public boolean openSession(WorkerLocation at, UUID conversationId, String userId, boolean resume)
            throws WorkerCallFailed {
        ObjectNode body = JSON.createObjectNode()
                .put("conversationId", conversationId.toString())
                .put("userId", userId)
                .put("resume", resume);
        HttpResponse<String> response = call(at, "POST", "/sessions", JSON.writeValueAsBytes(body));
        return switch (response.statusCode()) {
            case 201 -> true;
            case 200 -> false;
            default -> throw unexpected(response);
        };
    }

    /** {@code POST /sessions/{id}/messages}. */
    public MessageOutcome postMessage(WorkerLocation at, UUID conversationId, UUID messageId, String text)
            throws WorkerCallFailed, SessionUnknown {
        ObjectNode body =
                JSON.createObjectNode().put("messageId", messageId.toString()).put("text", text);
        HttpResponse<String> response =
                call(at, "POST", sessionPath(conversationId) + "/messages", JSON.writeValueAsBytes(body));
        return switch (response.statusCode()) {
            case 202 -> MessageOutcome.ACCEPTED;
            case 409 -> MessageOutcome.BUSY;
            case 429 -> MessageOutcome.WORKER_BUSY;
            case 400, 413 -> MessageOutcome.REJECTED;
            case 404 -> throw new SessionUnknown();
            default -> throw unexpected(response);
        };
    }

    /** {@code POST /sessions/{id}/interrupt}; false if the worker has no such session. */
    public boolean interrupt(WorkerLocation at, UUID conversationId) throws WorkerCallFailed {
        HttpResponse<String> response = call(at, "POST", sessionPath(conversationId) + "/interrupt", new byte[0]);
        return switch (response.statusCode()) {
            case 202 -> true;
            case 404 -> false;
            default -> throw unexpected(response);
        };
    }

    /** {@code DELETE /sessions/{id}}: the worker stops the session and forgets its transcript. */
    public void closeSession(WorkerLocation at, UUID conversationId) throws WorkerCallFailed {
        HttpResponse<String> response = call(at, "DELETE", sessionPath(conversationId), new byte[0]);
        if (response.statusCode() != 204 && response.statusCode() != 404) {
            throw unexpected(response);
        }
    }

    /** {@code GET /sessions/{id}/stream}, resuming after {@code lastEventId} when given. */
    public WorkerEventStream openStream(WorkerLocation at, UUID conversationId, @Nullable String lastEventId)
            throws WorkerCallFailed, SessionUnknown {
        String path = sessionPath(conversationId) + "/stream";
        HttpRequest.Builder request = signed(at, "GET", path, new byte[0])
                .header("Accept", "text/event-stream")
                .GET();
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<InputStream> response = send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() == 200) {
            return new WorkerEventStream(response.body());
        }
        String body = drain(response.body());
        if (response.statusCode() == 404) {
            throw new SessionUnknown();
        }
        throw new WorkerCallFailed(
                response.statusCode(),
                problemType(body),
                "the worker answered " + response.statusCode() + detail(body));
    }

    private HttpResponse<String> call(WorkerLocation at, String method, String path, byte[] body)
            throws WorkerCallFailed {
        HttpRequest request = signed(at, method, path, body)
                .timeout(properties.requestTimeout())
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        return send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private HttpRequest.Builder signed(WorkerLocation at, String method, String path, byte[] body) {
        String token = signer.sign(at.tenantEnvironment(), method, path, body);
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(stripSlash(at.baseUrl().toString()) + path))
                .header(CommandTokenFormat.HEADER, token);
        // The worker continues the trace on its calls back (docs/worker-contract.md). The command token
        // binds method, path and body only, so this header changes nothing it checks.
        traces.inject(request::header);
        return request;
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws WorkerCallFailed {
        try {
            return http.send(request, handler);
        } catch (java.net.http.HttpTimeoutException e) {
            throw new WorkerCallFailed(0, "the worker did not answer in time");
        } catch (IOException e) {
            throw new WorkerCallFailed(0, "the worker is unreachable");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkerCallFailed(0, "interrupted while calling the worker");
        }
    }

    private static WorkerCallFailed unexpected(HttpResponse<String> response) {
        return new WorkerCallFailed(
                response.statusCode(),
                problemType(response.body()),
                "the worker answered " + response.statusCode() + detail(response.body()));
    }

    /** The last segment of the problem's {@code type} ({@code …/problems/session-held-elsewhere}), if any. */
    private static @Nullable String problemType(String body) {
        try {
            JsonNode type = JSON.readTree(body).get("type");
            if (type != null && type.isString()) {
                String text = type.asString();
                return text.substring(text.lastIndexOf('/') + 1);
            }
        } catch (RuntimeException notJson) {
            // fall through: no type
        }
        return null;
    }

    /** The problem's {@code detail}, if the worker sent one; never the raw body, which could be anything. */
    private static String detail(String body) {
        try {
            JsonNode detail = JSON.readTree(body).get("detail");
            if (detail != null && detail.isString()) {
                String text = detail.asString();
                return ": " + (text.length() > 200 ? text.substring(0, 200) : text);
            }
        } catch (RuntimeException notJson) {
            // fall through: no detail
        }
        return "";
    }

    private static String drain(InputStream body) {
        try (body) {
            return new String(body.readNBytes(16 * 1024), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String sessionPath(UUID conversationId) {
        return "/sessions/" + conversationId;
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
