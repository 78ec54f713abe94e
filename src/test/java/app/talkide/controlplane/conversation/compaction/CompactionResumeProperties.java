package app.talkide.controlplane.conversation.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenTestSupport;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The compaction invariant: a client that resumes from any sequence number it ever saw ends with exactly
 * the transcript of a client that loads the conversation fresh, and of the events as they were appended,
 * while compaction folds and deletes under it. Generated conversations of turns with text and tool
 * blocks, messages queued during a turn, sometimes a last turn still running; appended through the real
 * log in random chunks; clients read in random pages and cut off at random events, racing a compactor
 * that deletes a few sequence numbers per statement. On H2, and on PostgreSQL in the database run.
 */
@Tag(DatabaseTest.TAG)
class CompactionResumeProperties {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static ConfigurableApplicationContext app;
    private static TenantEnvironmentId tenantEnvironment;

    @BeforeContainer
    static void start() throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + Files.createTempDirectory("compaction"),
                "--talkide.tokens.keys.master-keys=k1:" + TokenTestSupport.KEY_1,
                "--talkide.tokens.keys.active-kid=k1",
                "--talkide.conversations.compaction.enabled=false",
                "--talkide.conversations.compaction.after=0s",
                "--talkide.conversations.compaction.purge-batch=3"));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));
        app = new SpringApplicationBuilder(ControlPlaneApplication.class).run(args.toArray(String[]::new));
        tenantEnvironment = Fixtures.tenantEnvironment(app);
    }

    @AfterContainer
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Property(tries = 25)
    void resumingFromAnySeenSequenceNumberEndsWithTheFreshTranscript(
            @ForAll("conversations") List<TurnSpec> turns, @ForAll("seeds") long seed, @ForAll boolean lastRunning)
            throws Exception {
        ConversationEventLog log = app.getBean(ConversationEventLog.class);
        LogCompactor compactor = app.getBean(LogCompactor.class);
        UUID id = Fixtures.conversation(app, tenantEnvironment, "dev").id();
        Random random = new Random(seed);
        List<NewConversationEvent> events = events(turns, lastRunning);
        List<ConversationEvent> appended = new ArrayList<>();
        for (int i = 0; i < events.size(); ) {
            int chunk = 1 + random.nextInt(6);
            appended.addAll(log.append(id, events.subList(i, Math.min(events.size(), i + chunk))));
            i += chunk;
        }
        List<String> truth = new ReferenceTranscript().apply(appended).lines();

        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            List<Future<ReferenceTranscript>> clients = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                long clientSeed = random.nextLong();
                clients.add(threads.submit(() -> readWithCuts(log, id, new Random(clientSeed), Long.MAX_VALUE)));
            }
            // Clients that stop part-way, then resume only after compaction has gone over their position.
            List<ReferenceTranscript> paused = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                paused.add(readWithCuts(log, id, random, 1 + random.nextInt(Math.max(1, appended.size()))));
            }
            // Two compactors at once, as two replicas would run them: the second must find nothing to spoil.
            Future<Integer> first = threads.submit(() -> compactor.compact(id));
            Future<Integer> second = threads.submit(() -> compactor.compact(id));
            assertThat(first.get(60, TimeUnit.SECONDS) + second.get(60, TimeUnit.SECONDS))
                    .isEqualTo(turns.size() - (lastRunning ? 1 : 0));
            for (ReferenceTranscript client : paused) {
                continueReading(log, id, client, random);
                assertThat(client.lines()).isEqualTo(truth);
            }
            for (Future<ReferenceTranscript> client : clients) {
                assertThat(client.get(60, TimeUnit.SECONDS).lines()).isEqualTo(truth);
            }
        } finally {
            threads.shutdownNow();
        }
        List<ConversationEvent> compacted = log.readAfter(id, 0, 100_000);
        assertThat(new ReferenceTranscript().apply(compacted).lines()).isEqualTo(truth);
        long endedTurns = turns.size() - (lastRunning ? 1 : 0);
        long rawLeft = compacted.stream()
                .filter(e -> TurnFolder.FOLDED_TYPES.contains(e.type()))
                .filter(e -> !lastRunning || !e.data().contains("\"turnId\":\"turn-" + (turns.size() - 1) + "\""))
                .count();
        assertThat(rawLeft).as("raw pieces left of %s ended turns", endedTurns).isZero();
        // Numbers are never reused: what is left is a subset of what was appended, in the same order.
        assertThat(appended.stream().map(ConversationEvent::seq).toList())
                .containsAll(compacted.stream().map(ConversationEvent::seq).toList());
    }

    /** Reads from the start in random pages, cutting off after a random event of each page. */
    private static ReferenceTranscript readWithCuts(ConversationEventLog log, UUID id, Random random, long stopAfter) {
        ReferenceTranscript client = new ReferenceTranscript();
        int read = 0;
        while (read < stopAfter) {
            List<ConversationEvent> page = log.readAfter(id, client.lastSeq(), 1 + random.nextInt(7));
            if (page.isEmpty()) {
                break;
            }
            int keep = 1 + random.nextInt(page.size());
            client.apply(page.subList(0, keep));
            read += keep;
        }
        return client;
    }

    private static void continueReading(ConversationEventLog log, UUID id, ReferenceTranscript client, Random random) {
        for (List<ConversationEvent> page;
                !(page = log.readAfter(id, client.lastSeq(), 1 + random.nextInt(7))).isEmpty(); ) {
            client.apply(page.subList(0, 1 + random.nextInt(page.size())));
        }
    }

    // ---- generated conversations

    sealed interface BlockSpec permits Text, Tool {}

    record Text(List<String> deltas) implements BlockSpec {}

    record Tool(String name, int input, boolean completes, boolean isError) implements BlockSpec {}

    record TurnSpec(List<BlockSpec> blocks, boolean nextMessageQueued, boolean fails) {}

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }

    @Provide
    Arbitrary<List<TurnSpec>> conversations() {
        Arbitrary<BlockSpec> text = Arbitraries.strings()
                .withCharRange(' ', '~')
                .withChars('\n', '"', '\\', 'ř', '€')
                .ofMinLength(0)
                .ofMaxLength(4)
                .list()
                .ofMinSize(1)
                .ofMaxSize(12)
                .map(Text::new);
        Arbitrary<BlockSpec> tool = Combinators.combine(
                        Arbitraries.of("Read", "Bash", "Edit"),
                        Arbitraries.integers().between(0, 99),
                        Arbitraries.of(true, true, false),
                        Arbitraries.of(false, false, true))
                .as(Tool::new);
        Arbitrary<List<BlockSpec>> blocks = Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(3, text), net.jqwik.api.Tuple.of(1, tool))
                .list()
                .ofMaxSize(5);
        return Combinators.combine(
                        blocks, Arbitraries.of(false, false, true), Arbitraries.of(false, false, false, true))
                .as(TurnSpec::new)
                .list()
                .ofMinSize(1)
                .ofMaxSize(5);
    }

    /** The events a worker and the control plane append for these turns, as they would arrive. */
    private static List<NewConversationEvent> events(List<TurnSpec> turns, boolean lastRunning) {
        List<NewConversationEvent> events = new ArrayList<>();
        int[] source = {0};
        boolean accepted = false;
        for (int t = 0; t < turns.size(); t++) {
            TurnSpec turn = turns.get(t);
            String turnId = "turn-" + t;
            String messageId = "m-" + t;
            if (!accepted) {
                events.add(accepted(messageId));
            }
            accepted = false;
            events.add(worker(source, "turn.started", turnId, messageId, json -> {}));
            int tools = 0;
            for (BlockSpec block : turn.blocks()) {
                switch (block) {
                    case Text text ->
                        text.deltas()
                                .forEach(piece -> events.add(worker(
                                        source, "text.delta", turnId, messageId, json -> json.put("text", piece))));
                    case Tool tool -> {
                        String toolUseId = turnId + "-tool-" + tools++;
                        events.add(worker(source, "tool.started", turnId, messageId, json -> {
                            json.put("toolUseId", toolUseId);
                            json.put("name", tool.name());
                            json.putObject("input").put("n", tool.input()).put("path", "src/a\"b.java");
                        }));
                        if (tool.completes()) {
                            events.add(worker(source, "tool.completed", turnId, messageId, json -> {
                                json.put("toolUseId", toolUseId);
                                json.put("name", tool.name());
                                json.put("isError", tool.isError());
                                json.put("output", "out " + tool.input());
                            }));
                        }
                    }
                }
                if (turn.nextMessageQueued() && !accepted && t + 1 < turns.size()) {
                    events.add(accepted("m-" + (t + 1)));
                    accepted = true;
                }
            }
            if (t == turns.size() - 1 && lastRunning) {
                break;
            }
            events.add(worker(source, turn.fails() ? "turn.failed" : "turn.completed", turnId, messageId, json -> {
                if (turn.fails()) {
                    json.putObject("error").put("type", "interrupted");
                } else {
                    json.put("stopReason", "end_turn");
                    json.putObject("usage").put("inputTokens", 3).put("outputTokens", 5);
                }
            }));
        }
        return events;
    }

    private static NewConversationEvent accepted(String messageId) {
        ObjectNode json = JSON.createObjectNode()
                .put("messageId", messageId)
                .put("clientMessageId", "c-" + messageId)
                .put("text", "question " + messageId);
        return new NewConversationEvent("message.accepted", JSON.writeValueAsString(json), null);
    }

    private static NewConversationEvent worker(
            int[] source,
            String type,
            String turnId,
            String messageId,
            java.util.function.Consumer<ObjectNode> fields) {
        ObjectNode json = JSON.createObjectNode().put("turnId", turnId).put("messageId", messageId);
        fields.accept(json);
        return new NewConversationEvent(type, JSON.writeValueAsString(json), "w1-" + ++source[0]);
    }
}
