package app.talkide.controlplane.gateway.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the gateway reads of a request before forwarding it untouched. */
class MessagesRequestFactsTest {

    @Test
    void readsModelStreamAndMaxTokensAtTheTopLevelOnly() throws Exception {
        MessagesRequestFacts request = parse("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
                + "\"content\":{\"model\":\"fake\",\"stream\":false,\"max_tokens\":1}}]}],"
                + "\"model\":\"claude-opus-4-5\",\"stream\":true,\"max_tokens\":128000}");
        assertThat(request.model()).isEqualTo("claude-opus-4-5");
        assertThat(request.stream()).isTrue();
        assertThat(request.maxTokens()).isEqualTo(128_000);
    }

    @Test
    void readsTheThinkingBudgetOfTheTopLevelThinkingObjectOnly() throws Exception {
        assertThat(parse("{\"model\":\"m\",\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":10000}}")
                        .thinkingBudget())
                .isEqualTo(10_000);
        assertThat(parse("{\"model\":\"m\",\"metadata\":{\"budget_tokens\":5},\"messages\":[{\"role\":\"user\","
                                + "\"content\":{\"thinking\":{\"budget_tokens\":7}}}]}")
                        .thinkingBudget())
                .isZero();
        assertThat(parse("{\"model\":\"m\",\"thinking\":{\"type\":\"adaptive\"}}")
                        .thinkingBudget())
                .isZero();
    }

    @Test
    void aBase64AttachmentCountsAsAnImageNotAsItsLength() throws Exception {
        String image = "A".repeat(400_000);
        MessagesRequestFacts request = parse("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":"
                + "\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"" + image
                + "\"}}]}]}");
        assertThat(request.estimatedInputTokens()).isBetween(1_600L, 1_700L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "null", "[]", "\"text\"", "{", "{\"a\":1}}", "{}{}", "{} 1"})
    void anythingButOneJsonObjectIsRefused(String body) {
        assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(GatewayError.class, error -> {
            assertThat(error.status()).isEqualTo(400);
            assertThat(error.type()).isEqualTo("invalid_request_error");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.5", "\"128000\"", "1e9", "null", "[1]", "{\"n\":1}", "true", "99999999999999999999999"})
    void maxTokensThatIsNotAPlainIntegerCannotDodgeTheReservation(String maxTokens) {
        assertThatThrownBy(() -> parse("{\"model\":\"claude-opus-4-5\",\"max_tokens\":" + maxTokens + "}"))
                .isInstanceOfSatisfying(GatewayError.class, error -> {
                    assertThat(error.status()).isEqualTo(400);
                    assertThat(error.type()).isEqualTo("invalid_request_error");
                    assertThat(error.getMessage()).contains("max_tokens");
                });
    }

    private static MessagesRequestFacts parse(String body) throws GatewayError {
        return MessagesRequestFacts.parse(body.getBytes(StandardCharsets.UTF_8));
    }
}
