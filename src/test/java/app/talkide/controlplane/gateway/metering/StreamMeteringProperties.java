package app.talkide.controlplane.gateway.metering;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * However the upstream's bytes are cut into reads, the splitter yields the same whole events and the
 * meter the same usage; hostile bytes pass through unchanged and never break it.
 */
class StreamMeteringProperties {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static final String STREAM = event(
                    "message_start",
                    "{\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\","
                            + "\"usage\":{\"input_tokens\":25,\"cache_creation_input_tokens\":300,\"cache_read_input_tokens\":7,"
                            + "\"cache_creation\":{\"ephemeral_5m_input_tokens\":100,\"ephemeral_1h_input_tokens\":200},"
                            + "\"output_tokens\":1}}}")
            + event(
                    "content_block_start",
                    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}")
            + event(
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me think\"}}")
            + event(
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM\"}}")
            + "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"a.txt\\\"}\"}}\r\n\r\n"
            + event(
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"Żluťoučký kůň\"}}")
            + event("some_future_event", "{\"type\":\"some_future_event\",\"whatever\":[1,2,3]}")
            + event(
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"future_delta\",\"stuff\":\"x\"}}")
            + ": a comment line\n\n"
            + event(
                    "message_delta",
                    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":77}}")
            + event("message_stop", "{\"type\":\"message_stop\"}");

    @Property(tries = 300)
    void anySplitYieldsTheSameEventsAndUsage(@ForAll("cuts") List<Integer> cuts) throws Exception {
        byte[] bytes = STREAM.getBytes(StandardCharsets.UTF_8);
        SseEventSplitter splitter = new SseEventSplitter(1 << 20);
        StreamMeter meter = new StreamMeter();
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        List<String> events = new ArrayList<>();
        SseEventSplitter.Sink sink = (chunk, offset, length, complete) -> {
            passed.write(chunk, offset, length);
            if (complete) {
                events.add(meter.accept(chunk, offset, length));
            }
        };
        int from = 0;
        for (int cut : cuts.stream().map(c -> c % (bytes.length + 1)).sorted().toList()) {
            splitter.feed(bytes, from, cut - from, sink);
            from = cut;
        }
        splitter.feed(bytes, from, bytes.length - from, sink);
        splitter.finish(sink);

        assertThat(passed.toByteArray()).isEqualTo(bytes);
        assertThat(events)
                .containsExactly(
                        "message_start",
                        "content_block_start",
                        "content_block_delta",
                        "content_block_delta",
                        "content_block_delta",
                        "content_block_delta",
                        "some_future_event",
                        "content_block_delta",
                        "",
                        "message_delta",
                        "message_stop");
        assertThat(meter.counts()).isEqualTo(new TokenCounts(25, 100, 200, 7, 77));
        assertThat(meter.model()).isEqualTo("claude-x");
        assertThat(meter.stopped()).isTrue();
    }

    @Property(tries = 300)
    void hostileBytesPassThroughUnchangedAndNeverThrow(
            @ForAll("noise") byte[] noise, @ForAll("cuts") List<Integer> cuts) throws Exception {
        SseEventSplitter splitter = new SseEventSplitter(64);
        StreamMeter meter = new StreamMeter();
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        SseEventSplitter.Sink sink = (chunk, offset, length, complete) -> {
            passed.write(chunk, offset, length);
            if (complete) {
                meter.accept(chunk, offset, length);
            }
        };
        int from = 0;
        for (int cut : cuts.stream().map(c -> c % (noise.length + 1)).sorted().toList()) {
            splitter.feed(noise, from, cut - from, sink);
            from = cut;
        }
        splitter.feed(noise, from, noise.length - from, sink);
        splitter.finish(sink);
        assertThat(passed.toByteArray()).isEqualTo(noise);
        assertThat(meter.outputSoFar()).isNotNegative();
    }

    @Property(tries = 100)
    void outputBeforeTheFinalCountIsEstimatedFromTheDeltas(@ForAll("texts") List<String> texts) {
        StreamMeter meter = new StreamMeter();
        long characters = 0;
        for (String text : texts) {
            byte[] event = event(
                            "content_block_delta",
                            "{\"type\":\"content_block_delta\",\"index\":0,"
                                    + "\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            meter.accept(event, 0, event.length);
            characters += text.length();
        }
        assertThat(meter.outputSoFar())
                .isEqualTo(Math.max(texts.size(), Math.ceilDiv(characters, StreamMeter.CHARS_PER_TOKEN)));
    }

    @Property(tries = 300)
    void aDeltaCountsItsDecodedLengthWhateverItsEscapesAndKeyOrder(
            @ForAll("anyTexts") String text, @ForAll("deltaKinds") String kind, @ForAll boolean typeLast) {
        String field = switch (kind) {
            case "text_delta" -> "text";
            case "thinking_delta" -> "thinking";
            case "input_json_delta" -> "partial_json";
            default -> "signature";
        };
        ObjectNode delta = JSON.createObjectNode();
        if (!typeLast) {
            delta.put("type", kind);
        }
        delta.put(field, text);
        if (typeLast) {
            delta.put("type", kind);
        }
        ObjectNode data =
                JSON.createObjectNode().put("type", "content_block_delta").put("index", 0);
        data.set("delta", delta);
        byte[] event =
                event("content_block_delta", JSON.writeValueAsString(data)).getBytes(StandardCharsets.UTF_8);

        StreamMeter meter = new StreamMeter();
        meter.accept(event, 0, event.length);

        long characters = field.equals("signature") ? 0 : text.length();
        assertThat(meter.outputSoFar()).isEqualTo(Math.max(1, Math.ceilDiv(characters, StreamMeter.CHARS_PER_TOKEN)));
    }

    @Example
    void dataOverSeveralLinesIsJoinedAndNotJsonIsNotMetered() {
        StreamMeter meter = new StreamMeter();
        byte[] split = ("event: message_delta\ndata: {\"type\":\"message_delta\",\r\n"
                        + "data: \"usage\":{\"output_tokens\":9}}\n\n")
                .getBytes(StandardCharsets.UTF_8);
        byte[] broken = event("content_block_delta", "{\"delta\":{\"type\":\"text_delta\",\"text\":\"abc\"}} tail")
                .getBytes(StandardCharsets.UTF_8);

        meter.accept(broken, 0, broken.length);
        assertThat(meter.outputSoFar()).isZero();
        meter.accept(split, 0, split.length);
        assertThat(meter.outputSoFar()).isEqualTo(9);
    }

    @Provide
    Arbitrary<String> anyTexts() {
        // Every BMP character but lone surrogates (not valid UTF-8), and pairs beyond it.
        Arbitrary<String> plain =
                Arbitraries.strings().withCharRange('\u0000', '\uD7FF').ofMaxLength(30);
        Arbitrary<String> astral = Arbitraries.of("\uD83D\uDE00", "\uD834\uDD1E", "\"", "\\", "\n", "\u2028");
        return Arbitraries.oneOf(plain, astral).list().ofMaxSize(6).map(pieces -> String.join("", pieces));
    }

    @Provide
    Arbitrary<String> deltaKinds() {
        return Arbitraries.of("text_delta", "thinking_delta", "input_json_delta", "signature_delta");
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 5000).list().ofMaxSize(40);
    }

    @Provide
    Arbitrary<byte[]> noise() {
        Arbitrary<Byte> bytes = Arbitraries.oneOf(
                Arbitraries.bytes(),
                Arbitraries.of((byte) '\n', (byte) '\r', (byte) ':', (byte) '{', (byte) '"'),
                Arbitraries.of("data: ".getBytes(StandardCharsets.UTF_8)[0]));
        return bytes.array(byte[].class).ofMaxSize(600);
    }

    @Provide
    Arbitrary<List<String>> texts() {
        return Arbitraries.strings()
                .alpha()
                .numeric()
                .withChars(' ')
                .ofMaxLength(40)
                .list()
                .ofMaxSize(50);
    }

    private static String event(String type, String data) {
        return "event: " + type + "\ndata: " + data + "\n\n";
    }
}
