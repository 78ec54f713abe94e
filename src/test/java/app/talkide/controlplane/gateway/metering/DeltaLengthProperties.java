package app.talkide.controlplane.gateway.metering;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link StreamDeltaLength}, one parser for every input in turn as it is for every event of a stream, says
 * what Jackson says of each input alone ({@link JacksonDeltaLength}) on the same bytes: well-formed deltas
 * in any shape, the same with bytes broken, cut or inserted, and noise; what one input leaves behind never
 * changes the next one's answer.
 */
class DeltaLengthProperties {

    // Shared by every input a property tries, so what one event leaves behind meets the next.
    private static final StreamDeltaLength STREAM = new StreamDeltaLength();

    @Property(tries = 2000)
    void wellFormedDeltasMeasureAsJacksonDoes(@ForAll("deltas") String json) {
        assertSame(json.getBytes(StandardCharsets.UTF_8));
    }

    @Property(tries = 3000)
    void brokenDeltasAreRefusedOrMeasuredAsJacksonDoes(
            @ForAll("deltas") String json, @ForAll("edits") List<Edit> edits) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        for (Edit edit : edits) {
            bytes = edit.apply(bytes);
        }
        assertSame(bytes);
    }

    @Property(tries = 1000)
    void noiseIsRefusedOrMeasuredAsJacksonDoes(@ForAll("noise") byte[] noise) {
        assertSame(noise);
    }

    @Example
    void theEdgesJacksonDecides() {
        for (String json : List.of(
                "{\"delta\":{\"type\":\"text_delta\",\"text\":\"\\ud83d\\ude00é€😀\"}}",
                "{\"\\u0064elta\":{\"t\\u0079pe\":\"text_\\u0064elta\",\"text\":\"abc\"}}",
                "{\"delta\":{\"text\":\"abc\",\"type\":\"text\"},\"delta\":7}",
                "{\"delta\":{\"type\":5,\"text\":\"abc\"}}",
                "{\"a\":[1,-0.5e+3,true,false,null,{\"b\":[]}],\"delta\":{\"type\":\"thinking\",\"thinking\":\"x\"}}",
                "{\"a\":01}",
                "{\"a\":1.}",
                "{\"a\":-}",
                "{\"a\":\"\u0001\"}",
                "{\"a\":\"\\x\"}",
                "{} ",
                "{}}",
                "{}\"",
                "{}\"abc",
                "{}1",
                "{}\"\"",
                "{\"delta\":{\"type\":\"text_delta\",\"text\":\"ab\"}}\t\r\n ",
                "[]",
                "{\"a\":" + "[".repeat(499) + "]".repeat(499) + "}",
                "{\"a\":" + "[".repeat(500) + "]".repeat(500) + "}",
                "{\"a\":".repeat(500) + "1" + "}".repeat(500),
                "{\"a\":".repeat(501) + "1" + "}".repeat(501),
                // White space at every place JSON allows it, and digits at both ends of their range.
                "{ \"a\" : [ 0 , 9 , 0.09 , 9e09 , 90E-0 , -0 , [ ] , { } , { \"b\" : 0 } ] ,"
                        + " \"delta\" : { \"type\" : \"text_delta\" , \"text\" : \"ab\" } }",
                "{\"a\":9.}",
                "{\"a\":1e}",
                " \t\r\n{\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\": 1}\"}} \n")) {
            assertSame(json.getBytes(StandardCharsets.UTF_8));
        }
        assertSame(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'});
        assertSame(
                new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xF7, (byte) 0xBF, (byte) 0xBF, (byte) 0xBF, '"', '}'
                });
        assertSame(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xE2, (byte) 0x28, (byte) 0xA1, '"', '}'});
    }

    /**
     * Equal to Jackson's answer for the input alone. Bytes that are not UTF-8 may also be refused (-1, the
     * event is not metered): Jackson accepts a member name that is not UTF-8 unchecked when its symbol
     * table knows the name's first bytes, and the stream's long-lived parser knows other names than a
     * fresh one.
     */
    private static void assertSame(byte[] bytes) {
        long jackson = JacksonDeltaLength.of(bytes, 0, bytes.length);
        long streamed;
        byte[] framed = new byte[bytes.length + 6];
        System.arraycopy(bytes, 0, framed, 3, bytes.length);
        framed[0] = framed[framed.length - 1] = '}';
        long framedAnswer;
        synchronized (STREAM) {
            streamed = STREAM.of(bytes, 0, bytes.length);
            // The same bytes inside a larger buffer: offsets are honoured.
            framedAnswer = STREAM.of(framed, 3, bytes.length);
        }
        var claim = assertThat(streamed)
                .as(() -> "one parser per stream: " + new String(bytes, StandardCharsets.UTF_8) + " "
                        + HexFormat.of().formatHex(bytes));
        if (isUtf8(bytes)) {
            claim.isEqualTo(jackson);
        } else {
            claim.isIn(-1L, jackson);
        }
        assertThat(framedAnswer).isEqualTo(streamed);
    }

    private static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @Provide
    Arbitrary<String> deltas() {
        Arbitrary<String> type = Arbitraries.of(
                "text_delta",
                "text",
                "thinking_delta",
                "thinking",
                "input_json_delta",
                "signature_delta",
                "t\\u0065xt");
        Arbitrary<String> field = Arbitraries.of("type", "text", "thinking", "partial_json", "signature", "t\\u0065xt");
        Arbitrary<String> member =
                Combinators.combine(field, values(type)).as((name, value) -> "\"" + name + "\":" + value);
        Arbitrary<String> delta = member.list().ofMaxSize(5).map(members -> "{" + String.join(",", members) + "}");
        Arbitrary<String> eventMember = Combinators.combine(
                        Arbitraries.of("type", "index", "delta", "d\\u0065lta", "other"),
                        Arbitraries.oneOf(delta, values(type)))
                .as((name, value) -> "\"" + name + "\" :" + value);
        return eventMember.list().ofMaxSize(4).map(members -> " {" + String.join(" ,", members) + "}");
    }

    private static Arbitrary<String> values(Arbitrary<String> type) {
        Arbitrary<String> text = Arbitraries.oneOf(
                        Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(12),
                        Arbitraries.of("é€😀", "\\n\\t\\\"\\\\\\/", "\\ud83d\\ude00", "\\u00e9", "ž"))
                .list()
                .ofMaxSize(3)
                .map(parts -> "\""
                        + String.join("", parts)
                                .replace("\\\"", "\u0000")
                                .replace("\"", "")
                                .replace("\u0000", "\\\"") + "\"");
        return Arbitraries.oneOf(
                text,
                type.map(t -> "\"" + t + "\""),
                Arbitraries.of(
                        "0", "-12", "3.5e-2", "true", "false", "null", "[]", "[1,\"a\",{}]", "{\"x\":{\"y\":[null]}}"));
    }

    @Provide
    Arbitrary<List<Edit>> edits() {
        Arbitrary<Edit> edit = Combinators.combine(
                        Arbitraries.of(EditKind.values()),
                        Arbitraries.integers().between(0, 400),
                        Arbitraries.bytes())
                .as(Edit::new);
        return edit.list().ofMinSize(1).ofMaxSize(3);
    }

    @Provide
    Arbitrary<byte[]> noise() {
        return Arbitraries.oneOf(
                        Arbitraries.bytes(),
                        Arbitraries.of(
                                (byte) '{', (byte) '}', (byte) '"', (byte) ':', (byte) ',', (byte) '\\', (byte) 'u'))
                .array(byte[].class)
                .ofMaxSize(40);
    }

    enum EditKind {
        FLIP,
        CUT,
        INSERT
    }

    record Edit(EditKind kind, int at, byte value) {
        byte[] apply(byte[] bytes) {
            if (bytes.length == 0) {
                return bytes;
            }
            int i = at % bytes.length;
            return switch (kind) {
                case FLIP -> {
                    byte[] copy = bytes.clone();
                    copy[i] = value;
                    yield copy;
                }
                case CUT -> Arrays.copyOf(bytes, i);
                case INSERT -> {
                    byte[] copy = new byte[bytes.length + 1];
                    System.arraycopy(bytes, 0, copy, 0, i);
                    copy[i] = value;
                    System.arraycopy(bytes, i, copy, i + 1, bytes.length - i);
                    yield copy;
                }
            };
        }
    }
}
