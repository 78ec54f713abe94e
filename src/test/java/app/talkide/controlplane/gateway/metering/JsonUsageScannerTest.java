package app.talkide.controlplane.gateway.metering;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Usage from a non-streaming answer, read byte by byte as it passes. */
class JsonUsageScannerTest {

    @Test
    void readsModelAndUsageEvenOneByteAtATime() {
        String body = "{\"id\":\"msg\",\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":"
                + "\"{\\\"usage\\\":{\\\"input_tokens\\\":999}}\",\"usage\":{\"input_tokens\":5}}],"
                + "\"usage\":{\"input_tokens\":1200,\"cache_creation_input_tokens\":50,\"cache_read_input_tokens\":9,"
                + "\"cache_creation\":{\"ephemeral_5m_input_tokens\":20,\"ephemeral_1h_input_tokens\":30},"
                + "\"output_tokens\":88,\"server_tool_use\":{\"web_search_requests\":1}}}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        JsonUsageScanner scanner = new JsonUsageScanner();
        for (int i = 0; i < bytes.length; i++) {
            scanner.feed(bytes, i, 1);
        }
        assertThat(scanner.model()).isEqualTo("claude-sonnet-4-5");
        assertThat(scanner.sawUsage()).isTrue();
        assertThat(scanner.counts()).isEqualTo(new TokenCounts(1200, 20, 30, 9, 88));
    }

    @Test
    void aCacheCreationObjectOutsideUsageIsNotUsage() {
        byte[] bytes = ("{\"other\":{\"cache_creation\":{\"ephemeral_1h_input_tokens\":7}},"
                        + "\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}")
                .getBytes(StandardCharsets.UTF_8);
        JsonUsageScanner scanner = new JsonUsageScanner();
        scanner.feed(bytes, 0, bytes.length);
        assertThat(scanner.counts()).isEqualTo(new TokenCounts(1, 0, 0, 0, 2));
    }

    @Test
    void aBodyThatIsNotJsonYieldsNoUsage() {
        byte[] bytes = "<html>bad gateway</html>".getBytes(StandardCharsets.UTF_8);
        JsonUsageScanner scanner = new JsonUsageScanner();
        scanner.feed(bytes, 0, bytes.length);
        assertThat(scanner.sawUsage()).isFalse();
        assertThat(scanner.counts()).isEqualTo(TokenCounts.NONE);
    }
}
