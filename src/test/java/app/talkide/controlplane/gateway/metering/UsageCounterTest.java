package app.talkide.controlplane.gateway.metering;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** How reported usage is read: later reports replace field by field, odd values never bill less than reported. */
class UsageCounterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    final UsageCounter counter = new UsageCounter();

    @Test
    void aLaterReportReplacesOnlyTheFieldsItCarries() {
        counter.take(json("{\"input_tokens\":10,\"cache_read_input_tokens\":4,\"cache_creation_input_tokens\":6,"
                + "\"output_tokens\":1}"));
        counter.take(json("{\"output_tokens\":50}"));

        assertThat(counter.counts()).isEqualTo(new TokenCounts(10, 6, 0, 4, 50));
        assertThat(counter.output()).isEqualTo(50);
    }

    @Test
    void cacheWritesTheSplitDoesNotAccountForAreBilledAsFiveMinuteWrites() {
        counter.take(json("{\"cache_creation_input_tokens\":100,"
                + "\"cache_creation\":{\"ephemeral_5m_input_tokens\":10,\"ephemeral_1h_input_tokens\":30}}"));

        assertThat(counter.counts()).isEqualTo(new TokenCounts(0, 70, 30, 0, 0));
    }

    @Test
    void aSplitWithoutATotalIsTakenAsItIs() {
        counter.take(json("{\"cache_creation\":{\"ephemeral_5m_input_tokens\":10,\"ephemeral_1h_input_tokens\":30}}"));

        assertThat(counter.counts()).isEqualTo(new TokenCounts(0, 10, 30, 0, 0));
    }

    @Test
    void aTotalSmallerThanItsSplitNeverLowersTheFiveMinuteWrites() {
        counter.take(json("{\"cache_creation_input_tokens\":5,"
                + "\"cache_creation\":{\"ephemeral_5m_input_tokens\":10,\"ephemeral_1h_input_tokens\":30}}"));

        assertThat(counter.counts()).isEqualTo(new TokenCounts(0, 10, 30, 0, 0));
    }

    @Test
    void aTotalAloneReplacesAnEarlierSplit() {
        counter.take(json("{\"cache_creation\":{\"ephemeral_5m_input_tokens\":10,\"ephemeral_1h_input_tokens\":30}}"));
        counter.take(json("{\"cache_creation_input_tokens\":12}"));

        assertThat(counter.counts()).isEqualTo(new TokenCounts(0, 12, 0, 0, 0));
    }

    @Test
    void negativeCountsAreReadAsZero() {
        counter.take(json("{\"input_tokens\":-5,\"cache_read_input_tokens\":-1,"
                + "\"cache_creation\":{\"ephemeral_5m_input_tokens\":-10,\"ephemeral_1h_input_tokens\":-3}}"));

        assertThat(counter.counts()).isEqualTo(TokenCounts.NONE);
    }

    @Test
    void valuesThatAreNotNumbersAndUsageThatIsNoObjectChangeNothing() {
        counter.take(json("{\"input_tokens\":7,\"output_tokens\":3,\"cache_creation_input_tokens\":2}"));
        counter.take(json("{\"input_tokens\":\"many\",\"output_tokens\":null,\"cache_creation_input_tokens\":\"x\","
                + "\"cache_creation\":[1]}"));
        counter.take(json("[1,2]"));
        counter.take(null);

        assertThat(counter.counts()).isEqualTo(new TokenCounts(7, 2, 0, 0, 3));
    }

    @Test
    void outputIsFinalOnlyOnceSaid() {
        counter.take(json("{\"output_tokens\":9}"));
        assertThat(counter.outputReported()).isFalse();

        counter.outputIsFinal();

        assertThat(counter.outputReported()).isTrue();
        assertThat(counter.counts(12)).isEqualTo(new TokenCounts(0, 0, 0, 0, 12));
    }

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }
}
