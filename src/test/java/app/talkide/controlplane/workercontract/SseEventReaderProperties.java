package app.talkide.controlplane.workercontract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The SSE parser against what a worker could send: well-formed streams in any line ending, and garbage. */
class SseEventReaderProperties {

    @Property
    void eventsSurviveEveryLineEnding(@ForAll("payloads") List<String> payloads, @ForAll("lineEnds") String eol)
            throws IOException {
        StringBuilder stream = new StringBuilder("retry: 1000" + eol + eol + ": hello" + eol);
        for (int i = 0; i < payloads.size(); i++) {
            stream.append("id: e-").append(i).append(eol);
            stream.append("event: text.delta").append(eol);
            stream.append("data: ").append(payloads.get(i)).append(eol).append(eol);
        }
        List<SseEventReader.SseEvent> read = readAll(stream.toString());

        assertThat(read).hasSize(payloads.size());
        for (int i = 0; i < payloads.size(); i++) {
            assertThat(read.get(i).id()).isEqualTo("e-" + i);
            assertThat(read.get(i).type()).isEqualTo("text.delta");
            assertThat(read.get(i).data()).isEqualTo(payloads.get(i));
        }
    }

    @Property
    void garbageNeverThrowsAnythingButIoExceptions(@ForAll String garbage) {
        try {
            readAll(garbage);
        } catch (IOException tooLong) {
            // the only acceptable failure
        }
    }

    @Example
    void multiLineDataIsJoinedAndAnUnterminatedEventIsNotDispatched() throws IOException {
        List<SseEventReader.SseEvent> read = readAll("data: a\ndata: b\n\nid: 9\ndata: cut off");

        assertThat(read).hasSize(1);
        assertThat(read.getFirst().data()).isEqualTo("a\nb");
        assertThat(read.getFirst().type()).isEqualTo("message");
    }

    @Example
    void anEndlessLineIsRefusedInsteadOfBuffered() {
        String endless = "data: " + "x".repeat(SseEventReader.MAX_LINE + 10);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> readAll(endless))
                .isInstanceOf(IOException.class);
    }

    @Provide
    Arbitrary<List<String>> payloads() {
        return Arbitraries.strings()
                .withCharRange(' ', '~')
                .ofMaxLength(40)
                .map(s -> "{\"t\":\"" + s.replace("\"", "") + "\"}")
                .list()
                .ofMaxSize(20);
    }

    @Provide
    Arbitrary<String> lineEnds() {
        return Arbitraries.of("\n", "\r\n", "\r");
    }

    private static List<SseEventReader.SseEvent> readAll(String stream) throws IOException {
        SseEventReader reader = new SseEventReader(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)));
        List<SseEventReader.SseEvent> events = new ArrayList<>();
        SseEventReader.SseEvent event;
        while ((event = reader.next()) != null) {
            events.add(event);
        }
        return events;
    }
}
