package app.talkide.controlplane.local.referenceworker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contract's {@code /sessions} endpoints (docs/worker-contract.openapi.yaml). Every call is
 * authenticated first, with the exact body bytes, before anything is parsed.
 */
final class SessionRoutes implements HttpHandler {

    private static final int MAX_TEXT = 100_000;
    private static final int MAX_ID = 200;

    private final SessionStore sessions;
    private final TurnRunner turns;
    private final CommandAuthentication authentication;
    private final Duration heartbeat;

    SessionRoutes(SessionStore sessions, TurnRunner turns, CommandAuthentication authentication, Duration heartbeat) {
        this.sessions = sessions;
        this.turns = turns;
        this.authentication = authentication;
        this.heartbeat = heartbeat;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = HttpExchanges.readBody(exchange);
            if (body == null) {
                HttpExchanges.problem(exchange, 413, "too-large", "Request too large", "Commands are at most 1 MiB.");
                return;
            }
            if (!authentication.admit(exchange, body)) {
                return;
            }
            routeSafely(exchange, body);
        }
    }

    /** Bad input becomes a problem answer on the still-open exchange, never a dropped connection. */
    private void routeSafely(HttpExchange exchange, byte[] body) throws IOException {
        try {
            route(exchange, body);
        } catch (JacksonException | BadRequest e) {
            HttpExchanges.problem(exchange, 400, "bad-request", "Bad request", e.getMessage());
        } catch (SessionStore.SessionOwnedByOther e) {
            HttpExchanges.problem(
                    exchange, 409, "session-owned-by-other", "Session belongs to another user", e.getMessage());
        } catch (SessionStore.WorkerStopping e) {
            HttpExchanges.problem(
                    exchange, 503, "worker-stopping", "The worker is stopping", "Send the command again later.");
        }
    }

    private void route(HttpExchange exchange, byte[] body) throws IOException {
        String method = exchange.getRequestMethod();
        List<String> parts = List.of(exchange.getRequestURI().getPath().split("/")).stream()
                .filter(part -> !part.isEmpty())
                .toList();
        if (parts.size() == 1 && method.equals("POST")) {
            open(exchange, body);
            return;
        }
        if (parts.size() < 2 || parts.size() > 3) {
            notFound(exchange);
            return;
        }
        UUID id;
        try {
            id = UUID.fromString(parts.get(1));
        } catch (IllegalArgumentException e) {
            notFound(exchange);
            return;
        }
        String action = parts.size() == 3 ? parts.get(2) : "";
        switch (method + " " + action) {
            case "DELETE " -> {
                sessions.delete(id);
                HttpExchanges.empty(exchange, 204);
            }
            case "POST messages" -> withSession(exchange, id, session -> message(exchange, session, body));
            case "POST interrupt" -> withSession(exchange, id, session -> interrupt(exchange, session));
            case "GET stream" -> withSession(exchange, id, session -> stream(exchange, session));
            default -> notFound(exchange);
        }
    }

    private void open(HttpExchange exchange, byte[] body) throws IOException {
        JsonNode request = HttpExchanges.JSON.readTree(body);
        UUID conversationId = uuid(request, "conversationId");
        String userId = text(request, "userId", 255);
        SessionStore.Opened opened = sessions.open(conversationId, userId);
        ObjectNode answer = HttpExchanges.JSON
                .createObjectNode()
                .put("id", conversationId.toString())
                .put("conversationId", conversationId.toString())
                .put("userId", userId)
                .put("created", opened.created())
                .put("resumed", opened.resumed());
        HttpExchanges.json(exchange, opened.created() ? 201 : 200, answer);
    }

    private void message(HttpExchange exchange, Session session, byte[] body) throws IOException {
        JsonNode request = HttpExchanges.JSON.readTree(body);
        String messageId = text(request, "messageId", MAX_ID);
        String text = text(request, "text", MAX_TEXT);
        RunningTurn turn = new RunningTurn(
                messageId, Traceparent.valid(exchange.getRequestHeaders().getFirst(Traceparent.HEADER)));
        switch (session.accept(messageId, turn)) {
            case STARTED -> {
                Thread.ofVirtual().name("turn-" + turn.id()).start(() -> {
                    turn.runOn(Thread.currentThread());
                    turns.run(session, turn, text);
                });
                HttpExchanges.json(exchange, 202, accepted(messageId, "accepted"));
            }
            case DUPLICATE -> HttpExchanges.json(exchange, 202, accepted(messageId, "duplicate"));
            case BUSY ->
                HttpExchanges.problem(
                        exchange,
                        409,
                        "turn-running",
                        "A turn is running",
                        "Send the next message after the turn ends.");
            case CLOSED -> notFound(exchange);
        }
    }

    private static ObjectNode accepted(String messageId, String status) {
        return HttpExchanges.JSON.createObjectNode().put("messageId", messageId).put("status", status);
    }

    private void interrupt(HttpExchange exchange, Session session) throws IOException {
        RunningTurn turn = session.runningTurn();
        if (turn != null) {
            turn.interrupt();
        }
        HttpExchanges.json(exchange, 202, HttpExchanges.JSON.createObjectNode().put("interrupted", turn != null));
    }

    private void stream(HttpExchange exchange, Session session) throws IOException {
        StreamSubscriber subscriber = new StreamSubscriber();
        String lastEventId = exchange.getRequestHeaders().getFirst("Last-Event-ID");
        List<WorkerEvent> backlog = session.subscribe(lastEventId, subscriber);
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.getResponseHeaders().set("X-Accel-Buffering", "no");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            subscriber.pump(backlog, out, heartbeat);
        } catch (IOException clientGone) {
            // The control plane went away or was cut off; it reconnects with Last-Event-ID.
        } finally {
            session.unsubscribe(subscriber);
        }
    }

    private void withSession(HttpExchange exchange, UUID id, SessionAction action) throws IOException {
        Optional<Session> session = sessions.find(id);
        if (session.isEmpty()) {
            notFound(exchange);
        } else {
            action.run(session.get());
        }
    }

    private static void notFound(HttpExchange exchange) throws IOException {
        HttpExchanges.problem(exchange, 404, "session-not-found", "Not found", "No such session or path.");
    }

    private static UUID uuid(JsonNode request, String field) {
        try {
            return UUID.fromString(text(request, field, 36));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(field + " must be a UUID");
        }
    }

    private static String text(JsonNode request, String field, int maxLength) {
        JsonNode value = request.get(field);
        if (value == null || !value.isString() || value.asString().isBlank()) {
            throw new BadRequest(field + " is required and must be a non-empty string");
        }
        if (value.asString().length() > maxLength) {
            throw new BadRequest(field + " is longer than " + maxLength + " characters");
        }
        return value.asString();
    }

    @FunctionalInterface
    private interface SessionAction {
        void run(Session session) throws IOException;
    }

    private static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message, null, false, false);
        }
    }
}
