package app.talkide.controlplane.local.simulator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The simulator's front door: {@code POST /v1/messages}, {@code POST /v1/messages/count_tokens} and
 * {@code GET /v1/models[/{id}]}
 * (any query string, e.g. {@code ?beta=true}, and any {@code anthropic-beta} are accepted). Checks
 * run in the order the real API applies them: path, method, key,
 * {@code anthropic-version}, body size, body.
 */
final class SimulatorRouter implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(SimulatorRouter.class);
    private static final String BEARER = "Bearer ";
    private static final String MODELS = "/v1/models";
    /** API versions are dates; SDKs send newer ones than {@code 2023-06-01} (3.x sends 2026-10-21). */
    private static final Pattern VERSION = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

    private final SimulatorProperties properties;
    private final byte[] apiKey;
    private final MessagesEndpoint messages;
    private final AtomicInteger inFlight = new AtomicInteger();

    SimulatorRouter(SimulatorProperties properties, String apiKey, PromptCache cache) {
        this.properties = properties;
        this.apiKey = apiKey.getBytes(StandardCharsets.UTF_8);
        this.messages = new MessagesEndpoint(properties, cache);
    }

    @Override
    public void handle(HttpExchange exchange) {
        String requestId = ApiIds.request();
        inFlight.incrementAndGet();
        try {
            String path = exchange.getRequestURI().getPath();
            if (path.equals(MODELS) || path.startsWith(MODELS + "/")) {
                models(exchange, path, requestId);
                return;
            }
            boolean countTokens = route(exchange);
            authenticate(exchange);
            byte[] body = Exchanges.body(exchange, properties.maxRequestSize().toBytes());
            SimulatedRequest request = RequestParser.parse(body, countTokens);
            if (countTokens) {
                ObjectNode count = JsonNodeFactory.instance.objectNode();
                count.put("input_tokens", Prompt.of(request).totalTokens());
                Exchanges.json(exchange, 200, count, requestId);
            } else {
                messages.answer(exchange, request, requestId);
            }
        } catch (ApiError error) {
            respond(exchange, error, requestId);
        } catch (IOException e) {
            // The client went away (or the server is closing): nobody is left to answer.
            log.debug("Simulator request {} ended early: {}", requestId, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("Simulator failed on request {}", requestId, e);
            respond(exchange, new ApiError(500, "Internal server error"), requestId);
        } finally {
            exchange.close();
            inFlight.decrementAndGet();
        }
    }

    /** Requests being answered right now; a stream counts until its last event is written or it is abandoned. */
    int inFlight() {
        return inFlight.get();
    }

    private void models(HttpExchange exchange, String path, String requestId) throws IOException {
        if (!"GET".equals(exchange.getRequestMethod())) {
            throw new ApiError(405, "Method not allowed: use GET");
        }
        authenticate(exchange);
        String id = path.substring(MODELS.length());
        if (id.isEmpty()) {
            Exchanges.json(exchange, 200, ModelsEndpoint.list(), requestId);
        } else if (id.indexOf('/', 1) >= 0) {
            throw new ApiError(404, "Not found");
        } else {
            Exchanges.json(exchange, 200, ModelsEndpoint.one(id.substring(1)), requestId);
        }
    }

    private static boolean route(HttpExchange exchange) {
        boolean countTokens = switch (exchange.getRequestURI().getPath()) {
            case "/v1/messages" -> false;
            case "/v1/messages/count_tokens" -> true;
            default -> throw new ApiError(404, "Not found");
        };
        if (!"POST".equals(exchange.getRequestMethod())) {
            throw new ApiError(405, "Method not allowed: use POST");
        }
        return countTokens;
    }

    /**
     * The key arrives as {@code x-api-key} (what the gateway sends) or, as the official SDKs from 3.x on
     * send it, as {@code Authorization: Bearer}; the real API takes both.
     */
    private void authenticate(HttpExchange exchange) {
        String key = exchange.getRequestHeaders().getFirst("x-api-key");
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if ((key == null || key.isEmpty()) && authorization != null && authorization.startsWith(BEARER)) {
            if (!matches(authorization.substring(BEARER.length()))) {
                throw new ApiError(401, "invalid bearer token");
            }
        } else if (key == null || key.isEmpty()) {
            throw new ApiError(401, "x-api-key header is required");
        } else if (!matches(key)) {
            throw new ApiError(401, "invalid x-api-key");
        }
        String version = exchange.getRequestHeaders().getFirst("anthropic-version");
        if (version == null || version.isBlank()) {
            throw ApiError.invalidRequest("anthropic-version: header is required");
        }
        if (!VERSION.matcher(version.strip()).matches()) {
            throw ApiError.invalidRequest("anthropic-version: unknown version " + version.strip());
        }
    }

    private boolean matches(String candidate) {
        return MessageDigest.isEqual(apiKey, candidate.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange exchange, ApiError error, String requestId) {
        if (exchange.getResponseCode() != -1) {
            // Headers are out (a stream was running): there is no status left to send.
            return;
        }
        try {
            Exchanges.error(exchange, error, requestId);
        } catch (IOException e) {
            log.debug("Simulator could not send its error for {}: {}", requestId, e.toString());
        }
    }
}
