package app.talkide.controlplane.conversation.eventlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.support.ApplicationWithoutWebTest;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

@DatabaseTest
@ApplicationWithoutWebTest
class ConversationEventLogTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    ConversationEventLog log;

    @Autowired
    MeterRegistry meters;

    @Autowired
    DataSource dataSource;

    TenantEnvironmentId tenantEnvironment;

    @BeforeEach
    void setUp() {
        tenantEnvironment = Fixtures.tenantEnvironment(context);
    }

    @Test
    void appendNumbersEventsFromOneAndReadsThemBackInOrder() {
        UUID id = conversation();

        List<ConversationEvent> first = log.append(id, List.of(event("a"), event("b")));
        List<ConversationEvent> second = log.append(id, List.of(event("c")));

        assertThat(first).extracting(ConversationEvent::seq).containsExactly(1L, 2L);
        assertThat(second).extracting(ConversationEvent::seq).containsExactly(3L);
        assertThat(log.readAfter(id, 0, 10)).extracting(ConversationEvent::data).containsExactly("a", "b", "c");
        assertThat(log.readAfter(id, 1, 1)).extracting(ConversationEvent::data).containsExactly("b");
    }

    @Test
    void concurrentAppendersToOneConversationGetAGaplessSequenceAndKeepTheirOwnOrder() throws Exception {
        UUID id = conversation();
        int appenders = 8;
        int perAppender = 50;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int a = 0; a < appenders; a++) {
                int appender = a;
                running.add(pool.submit(() -> IntStream.range(0, perAppender)
                        .forEach(i -> log.append(id, List.of(event(appender + ":" + i))))));
            }
            for (Future<?> future : running) {
                future.get(30, TimeUnit.SECONDS);
            }
        }

        List<ConversationEvent> stored = log.readAfter(id, 0, 10_000);
        assertThat(stored)
                .extracting(ConversationEvent::seq)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, appenders * perAppender)
                        .boxed()
                        .toList());
        for (int a = 0; a < appenders; a++) {
            String prefix = a + ":";
            assertThat(stored.stream()
                            .map(ConversationEvent::data)
                            .filter(data -> data.startsWith(prefix))
                            .map(data -> Integer.parseInt(data.substring(prefix.length())))
                            .toList())
                    .isSorted()
                    .hasSize(perAppender);
        }
        assertThat(meters.get("talkide.conversations.log.batch.events")
                        .summary()
                        .max())
                .as("appends waiting for a transaction are committed together")
                .isGreaterThan(1);
    }

    @Test
    void anEventWhoseSourceIdWasAppendedBeforeIsSkipped() {
        UUID id = conversation();
        log.append(id, List.of(fromWorker("w1"), fromWorker("w2")));

        List<ConversationEvent> again = log.append(id, List.of(fromWorker("w2"), fromWorker("w3"), fromWorker("w3")));

        assertThat(again).extracting(ConversationEvent::sourceEventId).containsExactly("w3");
        assertThat(again).extracting(ConversationEvent::seq).containsExactly(3L);
        assertThat(log.readAfter(id, 0, 10))
                .extracting(ConversationEvent::sourceEventId)
                .containsExactly("w1", "w2", "w3");
    }

    @Test
    void concurrentAppendsOfTheSameWorkerEventsStoreEachOnce() throws Exception {
        UUID id = conversation();
        List<NewConversationEvent> workerEvents =
                IntStream.range(0, 100).mapToObj(i -> fromWorker("w" + i)).toList();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            // Two consumers of one worker stream (a failover overlap), appending event by event.
            List<Future<?>> running = List.of(
                    pool.submit(() -> workerEvents.forEach(e -> log.append(id, List.of(e)))),
                    pool.submit(() -> workerEvents.forEach(e -> log.append(id, List.of(e)))));
            for (Future<?> future : running) {
                future.get(30, TimeUnit.SECONDS);
            }
        }

        assertThat(log.readAfter(id, 0, 1000))
                .extracting(ConversationEvent::sourceEventId)
                .containsExactlyElementsOf(workerEvents.stream()
                        .map(NewConversationEvent::sourceEventId)
                        .toList());
    }

    @Test
    void anAppendWaitingForAnotherReplicasSequenceLockSkipsTheWorkerEventsThatReplicaCommitted() throws Exception {
        UUID id = conversation();
        log.append(id, List.of(event("before")));
        double racedBefore =
                meters.counter("talkide.conversations.log.append.raced").count();
        try (Connection other = dataSource.getConnection();
                ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            // Another replica's transaction: holds the sequence row, has stored w1 and w2, not committed yet.
            other.setAutoCommit(false);
            execute(other, "update conversation_sequence set last_seq = 3 where conversation_id = ?", id);
            execute(
                    other,
                    "insert into conversation_event (conversation_id, seq, type, data, source_event_id,"
                            + " created_at) values (?, 2, 'text.delta', '{}', 'w1', current_timestamp),"
                            + " (?, 3, 'text.delta', '{}', 'w2', current_timestamp)",
                    id,
                    id);
            String otherSession = sessionId(other);

            Future<List<ConversationEvent>> append =
                    pool.submit(() -> log.append(id, List.of(fromWorker("w1"), fromWorker("w2"), fromWorker("w3"))));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingFor(otherSession));
            other.commit();

            assertThat(append.get(10, TimeUnit.SECONDS))
                    .extracting(ConversationEvent::sourceEventId, ConversationEvent::seq)
                    .containsExactly(tuple("w3", 4L));
        }
        assertThat(log.readAfter(id, 0, 10))
                .extracting(ConversationEvent::seq, ConversationEvent::sourceEventId)
                .containsExactly(tuple(1L, null), tuple(2L, "w1"), tuple(3L, "w2"), tuple(4L, "w3"));
        if (TestDatabase.isPostgres()) {
            assertThat(meters.counter("talkide.conversations.log.append.raced").count())
                    .as("the one-statement append noticed the race and wrote the batch again")
                    .isEqualTo(racedBefore + 1);
        }
    }

    @Test
    void oneBatchOfSeveralConversationsNumbersEachFromItsOwnSequence() throws Exception {
        UUID first = conversation();
        UUID second = conversation();
        log.append(first, List.of(event("a")));
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                int n = i;
                running.add(pool.submit(() -> log.append(first, List.of(fromWorker("f" + n), event("x")))));
                running.add(pool.submit(() -> log.append(second, List.of(fromWorker("s" + n), fromWorker("s" + n)))));
            }
            for (Future<?> future : running) {
                future.get(30, TimeUnit.SECONDS);
            }
        }

        assertThat(log.readAfter(first, 0, 1000))
                .extracting(ConversationEvent::seq)
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(1, 101).boxed().toList());
        assertThat(log.readAfter(second, 0, 1000))
                .extracting(ConversationEvent::seq)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, 50).boxed().toList());
    }

    @Test
    void controlPlaneEventsWithoutSourceIdAreNeverSkipped() {
        UUID id = conversation();

        log.append(id, List.of(event("x"), event("x")));

        assertThat(log.readAfter(id, 0, 10)).hasSize(2);
    }

    @Test
    void aFailingAppendFailsAloneNotTheOthersCommittedWithIt() throws Exception {
        UUID id = conversation();
        UUID unknown = UUID.randomUUID();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<List<ConversationEvent>>> good = new ArrayList<>();
            List<Future<List<ConversationEvent>>> bad = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                good.add(pool.submit(() -> log.append(id, List.of(event("ok")))));
                bad.add(pool.submit(() -> log.append(unknown, List.of(event("nobody")))));
            }
            for (Future<List<ConversationEvent>> future : good) {
                assertThat(future.get(30, TimeUnit.SECONDS)).hasSize(1);
            }
            for (Future<List<ConversationEvent>> future : bad) {
                assertThatThrownBy(future::get).hasRootCauseInstanceOf(java.sql.SQLException.class);
            }
        }
        assertThat(log.readAfter(id, 0, 100)).hasSize(20);
    }

    /** Whether some other session waits for a lock the given one holds. */
    private boolean waitingFor(String session) throws SQLException {
        String sql = TestDatabase.isPostgres()
                ? "select count(*) from pg_stat_activity where cast(? as int) = any(pg_blocking_pids(pid))"
                : "select count(*) from information_schema.sessions where blocker_id = cast(? as int)";
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, session);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }

    private static String sessionId(Connection connection) throws SQLException {
        String sql = TestDatabase.isPostgres() ? "select pg_backend_pid()" : "select session_id()";
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execute(Connection connection, String sql, Object... params) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            statement.executeUpdate();
        }
    }

    @Test
    void anAppendInsideTheCallersTransactionCommitsAndRollsBackWithIt() throws Exception {
        UUID id = conversation();
        TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

        transaction.executeWithoutResult(status -> {
            assertThat(log.append(id, List.of(event("rolled back"))))
                    .extracting(ConversationEvent::seq)
                    .containsExactly(1L);
            // Written on the caller's connection: nobody else sees it before the commit.
            assertThat(readElsewhere(id)).isEmpty();
            status.setRollbackOnly();
        });
        assertThat(log.readAfter(id, 0, 10)).isEmpty();

        transaction.executeWithoutResult(status -> log.append(id, List.of(event("kept"))));
        assertThat(log.readAfter(id, 0, 10))
                .extracting(ConversationEvent::seq, ConversationEvent::data)
                .containsExactly(tuple(1L, "kept"));
    }

    /** Reads the log on another thread, so on another connection and outside the test's transaction. */
    private List<ConversationEvent> readElsewhere(UUID id) {
        try (ExecutorService other = Executors.newSingleThreadExecutor()) {
            return other.submit(() -> log.readAfter(id, 0, 10)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private UUID conversation() {
        Conversation conversation = Fixtures.conversation(context, tenantEnvironment, "dev");
        return conversation.id();
    }

    private static NewConversationEvent event(String data) {
        return new NewConversationEvent("test.event", data, null);
    }

    private static NewConversationEvent fromWorker(String sourceEventId) {
        return new NewConversationEvent("text.delta", "{\"text\":\"" + sourceEventId + "\"}", sourceEventId);
    }
}
