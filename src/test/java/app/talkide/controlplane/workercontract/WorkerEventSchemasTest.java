package app.talkide.controlplane.workercontract;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.TestHttp;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The published event schemas accept what the reference worker sends and refuse what the contract forbids. */
class WorkerEventSchemasTest {

    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    @Test
    void schemasRefuseEventsMissingWhatTheBrowserNeeds() throws IOException {
        assertThat(valid("text.delta", "{\"turnId\":\"t\",\"text\":\"hi\"}")).isTrue();
        assertThat(valid("text.delta", "{\"turnId\":\"t\"}")).isFalse();
        assertThat(valid("turn.failed", "{\"turnId\":\"t\",\"error\":{\"type\":\"budget_exceeded\"}}"))
                .isTrue();
        assertThat(valid("turn.failed", "{\"turnId\":\"t\",\"error\":{\"type\":\"Budget Exceeded\"}}"))
                .isFalse();
        assertThat(
                        valid(
                                "turn.completed",
                                "{\"turnId\":\"t\",\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":-1,\"outputTokens\":0}}"))
                .isFalse();
        assertThat(valid(
                        "tool.completed",
                        "{\"turnId\":\"t\",\"toolUseId\":\"u\",\"name\":\"bash\",\"isError\":\"no\"}"))
                .isFalse();
        assertThat(valid("session.status", "{}")).isFalse();
    }

    private boolean valid(String type, String json) throws IOException {
        Schema schema = registry.getSchema(Files.readString(Path.of("docs/worker-events/" + type + ".schema.json")));
        return schema.validate(TestHttp.JSON.readTree(json)).isEmpty();
    }
}
