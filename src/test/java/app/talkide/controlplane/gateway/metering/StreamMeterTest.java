package app.talkide.controlplane.gateway.metering;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * One event at a time: what each kind of event tells the meter, events named only by their data's type,
 * the upstream's final count against the estimate, and how an event's lines are read.
 */
class StreamMeterTest {

    final StreamMeter meter = new StreamMeter();

    @Test
    void anEventWithoutDataIsNamedAndMetersNothing() {
        assertThat(accept("event: ping\n\n")).isEqualTo("ping");
        assertThat(accept("event: ping\ndata: {\"type\":\"ping\"}\n\n")).isEqualTo("ping");
        assertThat(accept("event: content_block_stop\ndata: {\"index\":0}\n\n")).isEqualTo("content_block_stop");
        assertThat(accept(": comment\n\n")).isEmpty();
        assertThat(meter.outputSoFar()).isZero();
    }

    @Test
    void anEventWithoutANameIsNamedByItsDataAndMeteredAsSuch() {
        assertThat(
                        accept(
                                "data: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":4}}}\n\n"))
                .isEqualTo("message_start");
        assertThat(
                        accept(
                                "data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"abcdefg\"}}\n\n"))
                .isEqualTo("content_block_delta");

        assertThat(meter.started()).isTrue();
        assertThat(meter.model()).isEqualTo("m");
        assertThat(meter.outputSoFar()).isEqualTo(3); // 7 characters, 3 to a token, rounded up
        assertThat(meter.counts()).isEqualTo(new TokenCounts(4, 0, 0, 0, 3));
    }

    @Test
    void anUnnamedDeltaWithoutTextStillCountsAsAToken() {
        accept("data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"\"}}\n\n");

        assertThat(meter.outputSoFar()).isEqualTo(1);
    }

    @Test
    void theEventLineNamesTheEventWhateverTheDataSays() {
        assertThat(accept("event: something_new\ndata: {\"type\":\"message_stop\"}\n\n"))
                .isEqualTo("something_new");
        assertThat(meter.stopped()).isFalse();

        assertThat(accept("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"))
                .isEqualTo("message_stop");
        assertThat(meter.stopped()).isTrue();
    }

    @Test
    void aContentBlockStartsTextCountsTowardsTheEstimate() {
        accept("event: content_block_start\ndata: {\"content_block\":{\"type\":\"text\",\"text\":\"abcdef\"}}\n\n");
        accept("event: content_block_start\ndata: {\"content_block\":{\"type\":\"tool_use\",\"id\":\"x\"}}\n\n");

        assertThat(meter.outputSoFar()).isEqualTo(2);
    }

    @Test
    void theUpstreamsFinalCountReplacesTheEstimateEvenWhenLower() {
        accept(delta("text_delta", "text", "x".repeat(30)));
        assertThat(meter.outputSoFar()).isEqualTo(10);
        assertThat(meter.countsAtLeast(12).output()).isEqualTo(12);

        accept("event: message_delta\ndata: {\"usage\":{\"output_tokens\":4}}\n\n");

        assertThat(meter.outputSoFar()).isEqualTo(4);
        assertThat(meter.countsAtLeast(12).output()).isEqualTo(4);
    }

    @Test
    void anErrorEventIsRecordedByItsType() {
        assertThat(meter.errorType()).isNull();
        accept("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n");
        assertThat(meter.errorType()).isEqualTo("overloaded_error");
        accept("event: error\ndata: {}\n\n");
        assertThat(meter.errorType()).isEqualTo("error");
    }

    @Test
    void dataThatIsNotJsonIsNotMetered() {
        assertThat(accept("event: message_start\ndata: {not json\n\n")).isEqualTo("message_start");
        assertThat(meter.started()).isFalse();
    }

    @Test
    void dataLinesAreJoinedWithALineFeed() {
        StreamMeter.SseEvent event = parse("event: x\ndata: a\ndata:b\ndata:  c\n\n");

        assertThat(data(event)).isEqualTo("a\nb\n c");
        // a second line far longer than the first still fits
        assertThat(data(parse("data: a\ndata: " + "b".repeat(300) + "\n\n"))).isEqualTo("a\n" + "b".repeat(300));
    }

    @Test
    void aNameIsKnownOnlyWhenItMatchesWhole() {
        assertThat(parse("event: message_stopped\n\n").type()).isEqualTo("message_stopped");
        assertThat(parse("event: message_sto\n\n").type()).isEqualTo("message_sto");
        assertThat(parse("event:ping\n\n").type()).isEqualTo("ping");
        assertThat(parse("event: \n\n").type()).isEmpty();
    }

    @Test
    void fieldsWithNothingAfterTheirColonAndCutLinesAreRead() {
        StreamMeter.SseEvent empty = parse("data:");
        assertThat(empty.data()).isNotNull();
        assertThat(data(empty)).isEmpty();
        assertThat(parse("event:").type()).isEmpty();
        assertThat(parse("event: ping\nda").data()).isNull();
        assertThat(parse("event: ping\nevent").type()).isEqualTo("ping");
    }

    private String accept(String event) {
        byte[] bytes = event.getBytes(StandardCharsets.UTF_8);
        return meter.accept(bytes, 0, bytes.length);
    }

    private static String delta(String type, String field, String text) {
        return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"" + type
                + "\",\"" + field + "\":\"" + text + "\"}}\n\n";
    }

    private static StreamMeter.SseEvent parse(String event) {
        byte[] bytes = event.getBytes(StandardCharsets.UTF_8);
        return StreamMeter.SseEvent.parse(bytes, 0, bytes.length);
    }

    private static String data(StreamMeter.SseEvent event) {
        return new String(event.data(), event.dataOffset(), event.dataLength(), StandardCharsets.UTF_8);
    }
}
