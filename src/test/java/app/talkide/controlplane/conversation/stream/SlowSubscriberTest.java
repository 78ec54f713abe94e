package app.talkide.controlplane.conversation.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A browser that stops reading: its connection is cut once it is more than the queue capacity behind,
 * instead of events piling up for it; it then resumes from the last whole event it got and misses
 * nothing.
 */
@DatabaseTest
// Stays: a configuration no other class has, so nothing could reuse the context; closing it frees its pool.
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"talkide.conversations.stream.queue-capacity=64", "talkide.conversations.log.ring-size=128"})
class SlowSubscriberTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    static final int EVENTS = 3_000;
    static final String PADDING = "x".repeat(4_000);
    static final Pattern EVENT = Pattern.compile("id: (\\d+)\nevent: text\\.delta\ndata: [^\n]*\n\n");

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    ConversationEventLog log;

    @Autowired
    BrowserStreams streams;

    @Autowired
    MeterRegistry meters;

    @Test
    void aSubscriberThatStopsReadingIsDisconnectedAndResumesWithNothingLost() throws Exception {
        UUID id = Fixtures.conversation(context, Fixtures.tenantEnvironment(context), "dev")
                .id();
        List<Long> received;
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.setSoTimeout(30_000);
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.getOutputStream()
                    .write(("GET /api/conversations/" + id + "/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + "Authorization: " + DEV + "\r\nAccept: text/event-stream\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            await().atMost(Duration.ofSeconds(10)).until(() -> streams.openCount() == 1);

            // The first event is read, so what the kernel discards when the connection is reset can
            // never leave the client with nothing to resume from.
            append(id, 1, 1);
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            readUntilFirstEvent(socket.getInputStream(), response);
            for (int from = 2; from <= EVENTS; from += 50) {
                append(id, from, Math.min(EVENTS, from + 49));
            }

            // Cut while the client still reads nothing: the server holds no queue for it any more.
            await().atMost(Duration.ofSeconds(20)).until(() -> streams.openCount() == 0);
            assertThat(meters.get("talkide.conversations.streams.overflows")
                            .counter()
                            .count())
                    .isEqualTo(1);
            response.writeBytes(readToEnd(socket.getInputStream()));
            received = ids(dechunk(response.toByteArray()));
        }
        assertThat(received).isNotEmpty().hasSizeLessThan(EVENTS);
        assertThat(received).containsExactlyElementsOf(seqs(1, received.size()));

        try (SseClient resumed = SseClient.connect(
                "http://127.0.0.1:" + port + "/api/conversations/" + id + "/stream",
                "Authorization",
                DEV,
                "Last-Event-ID",
                String.valueOf(received.getLast()))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> resumed.events().size() == EVENTS - received.size());
            assertThat(resumed.ids()).containsExactlyElementsOf(seqs(received.size() + 1, EVENTS));
        }
    }

    private void append(UUID id, int from, int to) {
        log.append(
                id,
                IntStream.rangeClosed(from, to)
                        .mapToObj(n -> new NewConversationEvent("text.delta", "{\"pad\":\"" + PADDING + "\"}", null))
                        .toList());
    }

    private static void readUntilFirstEvent(InputStream in, ByteArrayOutputStream response) throws IOException {
        byte[] buffer = new byte[8_192];
        while (!ids(dechunk(response.toByteArray())).contains(1L)) {
            int n = in.read(buffer);
            if (n < 0) {
                throw new IOException("stream closed before its first event");
            }
            response.write(buffer, 0, n);
        }
    }

    /** Everything until the server closed the connection (cleanly or not). */
    private static byte[] readToEnd(InputStream in) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[65_536];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                all.write(buffer, 0, n);
            }
        } catch (IOException reset) {
            // an aborted connection may end with a reset; what arrived before counts
        }
        return all.toByteArray();
    }

    /** The body of a chunked HTTP/1.1 response, as far as it arrived. */
    private static String dechunk(byte[] response) {
        String raw = new String(response, StandardCharsets.ISO_8859_1);
        int headersEnd = raw.indexOf("\r\n\r\n");
        if (headersEnd < 0) {
            return "";
        }
        int position = headersEnd + 4;
        StringBuilder body = new StringBuilder();
        while (position < raw.length()) {
            int lineEnd = raw.indexOf("\r\n", position);
            if (lineEnd < 0) {
                break;
            }
            int size = Integer.parseInt(raw.substring(position, lineEnd).trim(), 16);
            if (size == 0) {
                break;
            }
            int start = lineEnd + 2;
            body.append(raw, start, Math.min(raw.length(), start + size));
            position = start + size + 2;
        }
        return body.toString();
    }

    private static List<Long> ids(String body) {
        List<Long> ids = new ArrayList<>();
        Matcher matcher = EVENT.matcher(body);
        while (matcher.find()) {
            ids.add(Long.parseLong(matcher.group(1)));
        }
        return ids;
    }

    private static List<Long> seqs(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
