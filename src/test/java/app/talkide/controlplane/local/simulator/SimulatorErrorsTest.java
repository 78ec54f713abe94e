package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.COUNT_TOKENS;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.MESSAGES;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.request;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.TestHttp;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Bad requests get the real API's statuses and error shape, never a stack trace or a hang. */
class SimulatorErrorsTest {

    static final SimulatorFixture simulator = new SimulatorFixture(
            new SimulatorProperties(0, Duration.ZERO, Duration.ZERO, 3, Duration.ZERO, DataSize.ofKilobytes(64), 1024));

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void badJsonIsAnInvalidRequestInAnthropicsErrorShape() {
        TestHttp.Response response = post(MESSAGES, "{\"model\": \"claude-sonnet-4-5\", ");

        assertError(response, 400, "invalid_request_error");
        assertThat(message(response)).contains("parsing the body");
        JsonNode body = response.json();
        assertThat(body.propertyNames()).containsExactly("type", "error", "request_id");
        assertThat(body.path("error").propertyNames()).containsExactly("type", "message");
        assertThat(body.path("request_id").asString()).isEqualTo(response.header("request-id"));
        assertThat(response.header("x-should-retry")).isEqualTo("false");
    }

    @Test
    void aBodyThatIsNotAnObjectIsRefused() {
        assertError(post(MESSAGES, "[1,2]"), 400, "invalid_request_error");
        assertError(post(MESSAGES, "{} {}"), 400, "invalid_request_error");
        assertError(post(MESSAGES, ""), 400, "invalid_request_error");
    }

    @Test
    void eachRequiredFieldIsNamedWhenMissing() {
        ObjectNode noModel = request("hi");
        noModel.remove("model");
        ObjectNode noMaxTokens = request("hi");
        noMaxTokens.remove("max_tokens");
        ObjectNode noMessages = request("hi");
        noMessages.remove("messages");

        assertThat(message(assertError(post(MESSAGES, noModel.toString()), 400, "invalid_request_error")))
                .isEqualTo("model: Field required");
        assertThat(message(assertError(post(MESSAGES, noMaxTokens.toString()), 400, "invalid_request_error")))
                .isEqualTo("max_tokens: Field required");
        assertThat(message(assertError(post(MESSAGES, noMessages.toString()), 400, "invalid_request_error")))
                .isEqualTo("messages: Field required");
    }

    @Test
    void wrongTypesAndValuesAreRefusedWithTheirPath() {
        assertThat(message(post(MESSAGES, request("hi").put("max_tokens", "ten").toString())))
                .isEqualTo("max_tokens: Input should be a valid integer");
        assertThat(message(post(MESSAGES, request("hi").put("max_tokens", 0).toString())))
                .isEqualTo("max_tokens: Input should be greater than or equal to 1");
        assertThat(message(post(MESSAGES, request("hi").put("max_tokens", 1e30).toString())))
                .isEqualTo("max_tokens: Input should be a valid integer");
        ObjectNode empty = request("hi");
        empty.putArray("messages");
        assertThat(message(post(MESSAGES, empty.toString()))).isEqualTo("messages: at least one message is required");
        ObjectNode system = request("hi");
        ((ObjectNode) system.withArray("messages").get(0)).put("role", "tool");
        assertThat(message(post(MESSAGES, system.toString())))
                .isEqualTo("messages.0.role: Input should be 'user' or 'assistant'");
        ObjectNode badBlock = request("hi");
        ((ObjectNode) badBlock.withArray("messages").get(0)).putArray("content").add(42);
        assertThat(message(post(MESSAGES, badBlock.toString()))).isEqualTo("messages.0.content.0.type: Field required");
        assertThat(message(post(MESSAGES, request("hi").put("stream", "yes").toString())))
                .isEqualTo("stream: Input should be a valid boolean");
    }

    @Test
    void aModelOutsideTheClaudeFamilyIsNotFound() {
        TestHttp.Response response =
                post(MESSAGES, request("hi").put("model", "gpt-4o").toString());

        assertError(response, 404, "not_found_error");
        assertThat(message(response)).isEqualTo("model: gpt-4o");
    }

    @Test
    void aWrongOrMissingKeyIsAnAuthenticationError() {
        String body = request("hi").toString();
        TestHttp.Response wrong =
                simulator.post(MESSAGES, body, "x-api-key", "sk-ant-not-the-one", "anthropic-version", "2023-06-01");
        TestHttp.Response missing = simulator.post(MESSAGES, body, "anthropic-version", "2023-06-01");
        TestHttp.Response wrongBearer = simulator.post(
                MESSAGES, body, "Authorization", "Bearer sk-ant-not-the-one", "anthropic-version", "2023-06-01");

        assertThat(message(assertError(wrong, 401, "authentication_error"))).isEqualTo("invalid x-api-key");
        assertThat(message(assertError(missing, 401, "authentication_error")))
                .isEqualTo("x-api-key header is required");
        assertThat(message(assertError(wrongBearer, 401, "authentication_error")))
                .isEqualTo("invalid bearer token");
        assertThat(wrong.body()).doesNotContain(simulator.server.apiKey()).doesNotContain("sk-ant-not-the-one");
    }

    @Test
    void theKeyIsAlsoAcceptedAsABearerTokenAsTheOfficialSdkSendsIt() {
        TestHttp.Response bearer = simulator.post(
                MESSAGES,
                request("hi").toString(),
                "Authorization",
                "Bearer " + simulator.server.apiKey(),
                "anthropic-version",
                "2023-06-01");

        assertThat(bearer.status()).isEqualTo(200);
    }

    @Test
    void theApiVersionHeaderIsRequired() {
        TestHttp.Response missing =
                simulator.post(MESSAGES, request("hi").toString(), "x-api-key", simulator.server.apiKey());
        TestHttp.Response unknown = simulator.post(
                MESSAGES,
                request("hi").toString(),
                "x-api-key",
                simulator.server.apiKey(),
                "anthropic-version",
                "1999");

        assertThat(message(assertError(missing, 400, "invalid_request_error")))
                .isEqualTo("anthropic-version: header is required");
        assertError(unknown, 400, "invalid_request_error");
    }

    @Test
    void otherPathsAreNotFoundAndOtherMethodsNotAllowed() {
        assertError(post("/v1/complete", request("hi").toString()), 404, "not_found_error");
        assertError(post("/v1/messages/batches", request("hi").toString()), 404, "not_found_error");
        TestHttp.Response get =
                simulator.http.get(MESSAGES, "x-api-key", simulator.server.apiKey(), "anthropic-version", "2023-06-01");
        assertError(get, 405, "invalid_request_error");
    }

    @Test
    void aBodyOverTheSizeLimitIsTooLarge() {
        ObjectNode huge = request("x".repeat(70 * 1024));

        assertError(post(MESSAGES, huge.toString()), 413, "request_too_large");
        // The connection's leftovers do not poison the next request.
        assertThat(post(MESSAGES, request("after").toString()).status()).isEqualTo(200);
    }

    @Test
    void moreThanFourCacheBreakpointsAreRefused() {
        ObjectNode request = request("hi");
        ArrayNode system = request.putArray("system");
        for (int i = 0; i < 5; i++) {
            system.addObject()
                    .put("type", "text")
                    .put("text", "part " + i)
                    .putObject("cache_control")
                    .put("type", "ephemeral");
        }

        assertThat(message(assertError(post(MESSAGES, request.toString()), 400, "invalid_request_error")))
                .isEqualTo("A maximum of 4 blocks with cache_control may be provided. Found 5.");
        system.get(0).withObject("cache_control").put("ttl", "2h");
        assertError(post(MESSAGES, request.toString()), 400, "invalid_request_error");
    }

    @Test
    void countTokensNeedsNoMaxTokensButDoesNeedMessages() {
        ObjectNode noMaxTokens = request("hi");
        noMaxTokens.remove("max_tokens");
        ObjectNode noMessages = request("hi");
        noMessages.remove("messages");

        assertThat(post(COUNT_TOKENS, noMaxTokens.toString())
                        .json()
                        .path("input_tokens")
                        .asInt())
                .isEqualTo(7);
        assertThat(message(assertError(post(COUNT_TOKENS, noMessages.toString()), 400, "invalid_request_error")))
                .isEqualTo("messages: Field required");
    }

    private static TestHttp.Response post(String path, String body) {
        return simulator.post(path, body, "x-api-key", simulator.server.apiKey(), "anthropic-version", "2023-06-01");
    }

    private static TestHttp.Response assertError(TestHttp.Response response, int status, String type) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.header("content-type")).isEqualTo("application/json");
        assertThat(response.json().path("type").asString()).isEqualTo("error");
        assertThat(response.json().path("error").path("type").asString()).isEqualTo(type);
        assertThat(response.header("request-id")).startsWith("req_011C");
        return response;
    }

    private static String message(TestHttp.Response response) {
        return response.json().path("error").path("message").asString();
    }
}
