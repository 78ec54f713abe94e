package app.talkide.controlplane.conversation.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;

@DatabaseTest
// Stays: a configuration no other class has, so nothing could reuse the context; closing it frees its pool.
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.conversations.stream.heartbeat=300ms",
            "talkide.conversations.stream.max-per-user=3",
            "talkide.conversations.stream.retry=2500ms"
        })
class ConversationStreamTest {

    static final String DEV = TestHttp.basic("dev", "dev");

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

    TenantEnvironmentId tenantEnvironment;
    final List<SseClient> clients = new ArrayList<>();

    @BeforeEach
    void setUp() {
        tenantEnvironment = Fixtures.tenantEnvironment(context);
    }

    @AfterEach
    void closeClients() {
        clients.forEach(SseClient::close);
        await().atMost(Duration.ofSeconds(5)).until(() -> streams.openCount() == 0);
    }

    @Test
    void streamSaysRetryThenReplaysTheLogThenDeliversLiveEventsInOrder() {
        UUID id = conversation("dev");
        append(id, 1, 3);
        SseClient stream = connect(id);

        append(id, 4, 10);

        await().atMost(Duration.ofSeconds(10)).until(() -> stream.events().size() == 10);
        assertThat(stream.retry()).isEqualTo(2500);
        assertThat(stream.ids()).containsExactlyElementsOf(seqs(1, 10));
        assertThat(stream.events()).allSatisfy(event -> assertThat(event.type()).isEqualTo("text.delta"));
        assertThat(stream.events().get(3).data()).isEqualTo("{\"n\":4}");
        assertThat(stream.header("Content-Type")).startsWith("text/event-stream");
        assertThat(stream.header("Cache-Control")).contains("no-cache");
        assertThat(stream.header("X-Accel-Buffering")).isEqualTo("no");
        assertThat(meters.get("talkide.conversations.streams.open").gauge().value())
                .isEqualTo(1);
        assertThat(meters.get("talkide.conversations.fanout.lag").timer().count())
                .isPositive();
    }

    @Test
    void removedMembersOpenStreamEndsAtOnce() {
        UUID id = conversation("dev");
        SseClient stream = connect(id);
        await().atMost(Duration.ofSeconds(5)).until(() -> streams.openCount() == 1);

        context.getBean(Memberships.class).revoke(tenantEnvironment, "dev");

        // well before the periodic re-check (10 s by default)
        await().atMost(Duration.ofSeconds(3)).until(stream::ended);
        assertThat(streams.openCount()).isZero();
        assertThat(new TestHttp(port)
                        .get("/api/conversations/" + id + "/stream", "Authorization", DEV)
                        .status())
                .isEqualTo(404);
    }

    @Test
    void memberRemovedOnAnotherReplicaLosesTheStreamAtTheNextRecheck() {
        UUID id = conversation("dev");
        UUID stays = Fixtures.conversation(context, Fixtures.tenantEnvironment(context), "dev")
                .id();
        SseClient removed = connect(id);
        SseClient kept = connect(stays);
        await().atMost(Duration.ofSeconds(5)).until(() -> streams.openCount() == 2);
        // as another replica would: straight in the database, no event here
        context.getBean(JdbcClient.class)
                .sql("delete from tenant_environment_member where tenant = :tenant and env = :env")
                .param("tenant", tenantEnvironment.tenant())
                .param("env", tenantEnvironment.env())
                .update();

        streams.recheckMemberships();

        await().atMost(Duration.ofSeconds(3)).until(removed::ended);
        assertThat(kept.ended()).isFalse();
        assertThat(streams.openCount()).isEqualTo(1);
    }

    @Test
    void resumingWithLastEventIdReplaysExactlyTheMissedEvents() {
        UUID id = conversation("dev");
        append(id, 1, 5);
        SseClient first = connect(id);
        await().atMost(Duration.ofSeconds(10)).until(() -> first.events().size() == 5);
        first.close();
        append(id, 6, 9);

        SseClient resumed = connect(id, "Last-Event-ID", "5");
        append(id, 10, 11);

        await().atMost(Duration.ofSeconds(10)).until(() -> resumed.events().size() == 6);
        assertThat(resumed.ids()).containsExactlyElementsOf(seqs(6, 11));
    }

    @Test
    void anIdBeyondTheLogsEndReplaysFromTheBeginningRatherThanHidingEvents() {
        UUID id = conversation("dev");
        append(id, 1, 3);

        SseClient stream = connect(id, "Last-Event-ID", "100");
        append(id, 4, 4);

        await().atMost(Duration.ofSeconds(10)).until(() -> stream.events().size() == 4);
        assertThat(stream.ids()).containsExactlyElementsOf(seqs(1, 4));
    }

    @Test
    void firstConnectMayGiveTheLastIdAsAQueryParameter() {
        UUID id = conversation("dev");
        append(id, 1, 4);

        SseClient stream = connect(id, "?lastEventId=2");

        await().atMost(Duration.ofSeconds(10)).until(() -> stream.events().size() == 2);
        assertThat(stream.ids()).containsExactly(3L, 4L);
    }

    @Test
    void aLongHistoryIsReplayedPageByPageBeforeTheLiveEvents() {
        UUID id = conversation("dev");
        append(id, 1, 1_200);
        SseClient stream = connect(id);
        append(id, 1_201, 1_210);

        await().atMost(Duration.ofSeconds(20)).until(() -> stream.events().size() == 1_210);
        assertThat(stream.ids()).containsExactlyElementsOf(seqs(1, 1_210));
    }

    @Test
    void aSilentStreamCarriesHeartbeatComments() {
        UUID id = conversation("dev");
        SseClient stream = connect(id);

        await().atMost(Duration.ofSeconds(5)).until(() -> stream.comments() >= 2);
        assertThat(stream.events()).isEmpty();
    }

    @Test
    void anotherUsersConversationOrAnUnknownIdAnswers404() {
        UUID someoneElses = conversation("someone-else");
        TestHttp http = new TestHttp(port);

        TestHttp.Response other = http.get(
                "/api/conversations/" + someoneElses + "/stream", "Authorization", DEV, "Accept", "text/event-stream");
        TestHttp.Response unknown = http.get(
                "/api/conversations/" + UUID.randomUUID() + "/stream",
                "Authorization",
                DEV,
                "Accept",
                "text/event-stream");

        assertThat(other.status()).isEqualTo(404);
        assertThat(other.body()).contains("conversation-not-found");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(other.body()).doesNotContain("someone-else");
        assertThat(streams.openCount()).isZero();
    }

    @Test
    void withoutAuthenticationTheStreamAnswers401() {
        UUID id = conversation("dev");

        assertThat(new TestHttp(port)
                        .get("/api/conversations/" + id + "/stream")
                        .status())
                .isEqualTo(401);
    }

    @Test
    void aUserMayHoldOnlySoManyOpenStreamsAndClosingOneFreesItsPlace() {
        UUID id = conversation("dev");
        List<SseClient> open = IntStream.range(0, 3).mapToObj(i -> connect(id)).toList();

        assertThatThrownBy(() -> connect(id)).hasMessageContaining("429").hasMessageContaining("too-many-streams");

        open.getFirst().close();
        await().atMost(Duration.ofSeconds(5)).until(() -> streams.openCount() == 2);
        SseClient again = connect(id);
        append(id, 1, 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> again.events().size() == 1);
    }

    @Test
    void manySubscribersOfOneConversationEachReceiveEveryEventOnce() {
        UUID id = conversation("dev");
        List<SseClient> subscribers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            subscribers.add(connect(id));
        }

        for (int i = 1; i <= 200; i++) {
            append(id, i, i);
        }

        for (SseClient subscriber : subscribers) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> subscriber.events().size() == 200);
            assertThat(subscriber.ids()).containsExactlyElementsOf(seqs(1, 200));
        }
    }

    private UUID conversation(String owner) {
        return Fixtures.conversation(context, tenantEnvironment, owner).id();
    }

    private void append(UUID id, int from, int to) {
        log.append(
                id,
                IntStream.rangeClosed(from, to)
                        .mapToObj(n -> new NewConversationEvent("text.delta", "{\"n\":" + n + "}", null))
                        .toList());
    }

    private SseClient connect(UUID id, String... headersOrQuery) {
        String url = "http://127.0.0.1:" + port + "/api/conversations/" + id + "/stream";
        List<String> headers = new ArrayList<>(List.of("Authorization", DEV));
        if (headersOrQuery.length == 1) {
            url += headersOrQuery[0];
        } else {
            headers.addAll(List.of(headersOrQuery));
        }
        SseClient client = SseClient.connect(url, headers.toArray(String[]::new));
        clients.add(client);
        return client;
    }

    private static List<Long> seqs(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
