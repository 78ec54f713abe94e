package app.talkide.controlplane.gateway.metering;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The splitter's edges: each blank-line form, a terminator cut between reads, the size limit to the byte. */
class SseEventSplitterTest {

    /** What the sink saw: each piece's text and whether it was a whole event. */
    record Piece(String text, boolean complete) {}

    final List<Piece> pieces = new ArrayList<>();
    final SseEventSplitter.Sink sink = (bytes, offset, length, complete) ->
            pieces.add(new Piece(new String(bytes, offset, length, StandardCharsets.UTF_8), complete));

    @ParameterizedTest
    @ValueSource(strings = {"\n\n", "\r\n\r\n", "\r\r", "\r\n\n", "\n\r\n", "\n\r", "\r\n\r", "\r\r\n"})
    void eachBlankLineFormEndsAnEventWhereverTheReadsAreCut(String blank) throws Exception {
        String first = "event: ping" + blank.substring(0, blank.length() / 2) + "data: {}" + blank;
        String second = "data: {\"n\":2}" + blank;
        byte[] stream = (first + second).getBytes(StandardCharsets.UTF_8);

        for (int cut = 0; cut <= stream.length; cut++) {
            pieces.clear();
            SseEventSplitter splitter = new SseEventSplitter(1024);
            splitter.feed(stream, 0, cut, sink);
            splitter.feed(stream, cut, stream.length - cut, sink);
            splitter.finish(sink);

            assertThat(pieces).as("cut at %d", cut).containsExactly(new Piece(first, true), new Piece(second, true));
        }
    }

    @Test
    void lineBreaksWithTextBetweenThemAreNoBlankLine() throws Exception {
        SseEventSplitter splitter = new SseEventSplitter(1024);
        byte[] stream = "data: a\nb\rc\r\nd\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < stream.length; i++) {
            splitter.feed(stream, i, 1, sink);
        }
        assertThat(pieces).isEmpty();

        splitter.finish(sink);
        assertThat(pieces).containsExactly(new Piece("data: a\nb\rc\r\nd\n", false));
    }

    @Test
    void anEventOfExactlyTheLimitHeldAcrossReadsIsWholeAndOneByteMoreIsPassedOnUnmetered() throws Exception {
        String atLimit = event(40);
        String overLimit = event(41);
        String after = "data: {}\n\n";
        // Read a byte at a time, all of an event but its last byte is held before it is known to be whole.
        SseEventSplitter splitter = new SseEventSplitter(40 - 1);

        feedByteByByte(splitter, atLimit + overLimit + after);

        assertThat(pieces.getFirst()).isEqualTo(new Piece(atLimit, true));
        List<Piece> oversized = pieces.subList(1, pieces.size() - 1);
        assertThat(oversized).allSatisfy(piece -> assertThat(piece.complete()).isFalse());
        assertThat(String.join("", oversized.stream().map(Piece::text).toList()))
                .isEqualTo(overLimit);
        assertThat(pieces.getLast()).isEqualTo(new Piece(after, true));
    }

    @Test
    void anEventLongerThanTheFirstBufferIsJoinedExactly() throws Exception {
        String big = event(5_000);
        SseEventSplitter splitter = new SseEventSplitter(1 << 20);
        byte[] bytes = (big + big).getBytes(StandardCharsets.UTF_8);
        for (int from = 0; from < bytes.length; from += 97) {
            splitter.feed(bytes, from, Math.min(97, bytes.length - from), sink);
        }

        assertThat(pieces).containsExactly(new Piece(big, true), new Piece(big, true));
    }

    @Test
    void aHeldTailLongerThanTwiceTheBufferIsKeptWhole() throws Exception {
        String big = event(1_000);
        byte[] bytes = bytes(big);
        SseEventSplitter splitter = new SseEventSplitter(1 << 20);
        splitter.feed(bytes, 0, 10, sink);
        splitter.feed(bytes, 10, 980, sink);
        splitter.feed(bytes, 990, 10, sink);

        assertThat(pieces).containsExactly(new Piece(big, true));
    }

    @Test
    void anOversizedEventEndingInACrAtTheEndOfAReadEndsThere() throws Exception {
        String over = event(60).replace("\n\n", "\n\r");
        SseEventSplitter splitter = new SseEventSplitter(40);
        splitter.feed(bytes(over), 0, over.length(), sink);
        splitter.feed(bytes("data: {}\n\n"), 0, 10, sink);

        assertThat(pieces.getLast()).isEqualTo(new Piece("data: {}\n\n", true));
        assertThat(pieces.subList(0, pieces.size() - 1))
                .allSatisfy(piece -> assertThat(piece.complete()).isFalse());
        assertThat(pieces).allSatisfy(piece -> assertThat(piece.text()).isNotEmpty());
    }

    @Test
    void finishPassesAnUnterminatedTailOnceAndNothingWhenNoneIsLeft() throws Exception {
        SseEventSplitter splitter = new SseEventSplitter(1024);
        splitter.feed(bytes("data: {}\n\ndata: cut"), 0, 19, sink);

        splitter.finish(sink);
        splitter.finish(sink);

        assertThat(pieces).containsExactly(new Piece("data: {}\n\n", true), new Piece("data: cut", false));
    }

    @Test
    void onlyTheGivenRangeOfTheChunkIsRead() throws Exception {
        byte[] chunk = bytes("xxxdata: {}\n\nyyy");
        new SseEventSplitter(1024).feed(chunk, 3, 10, sink);

        assertThat(pieces).containsExactly(new Piece("data: {}\n\n", true));
    }

    /** A data event of exactly {@code length} bytes, terminator included. */
    private static String event(int length) {
        char[] payload = new char[length - "data: \n\n".length()];
        Arrays.fill(payload, 'x');
        return "data: " + new String(payload) + "\n\n";
    }

    private void feedByteByByte(SseEventSplitter splitter, String stream) throws Exception {
        byte[] bytes = bytes(stream);
        for (int i = 0; i < bytes.length; i++) {
            splitter.feed(bytes, i, 1, sink);
            splitter.feed(bytes, i + 1, 0, sink); // an empty read passes nothing on
        }
        splitter.finish(sink);
        assertThat(pieces).allSatisfy(piece -> assertThat(piece.text()).isNotEmpty());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
