package app.talkide.controlplane.workercontract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WorkerContractClient;
import app.talkide.controlplane.workercontract.SseEventReader.SseEvent;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Checks a worker against docs/worker-contract.openapi.yaml and docs/worker-events/*.schema.json over
 * real HTTP. Runs in the normal suite against an embedded reference worker; point it at any worker with
 * {@code ./mvnw test -Dtest=WorkerContractConformanceTest -Dworker.url=http://... -Dworker.commandKey=kid:key
 * -Dworker.tenant=acme -Dworker.env=dev} (docs/worker-contract.md).
 */
class WorkerContractConformanceTest {

    private static final Set<String> TURN_ENDS = Set.of("turn.completed", "turn.failed");

    static WorkerUnderTest worker;
    static Map<String, Schema> schemas;

    @BeforeAll
    static void start() throws IOException {
        worker = WorkerUnderTest.fromSystemProperties();
        schemas = loadSchemas(Path.of("docs/worker-events"));
    }

    @AfterAll
    static void stop() {
        worker.close();
    }

    @Test
    void probesAnswerWithoutAToken() {
        TestHttp http = new TestHttp(worker.baseUrl.toString());
        assertThat(http.get("/healthz").status()).isEqualTo(200);
        assertThat(http.get("/readyz").status()).isEqualTo(200);
    }

    @Test
    void commandsWithoutAValidCommandTokenAreRefused() {
        WorkerContractClient client = worker.client;
        String body = "{\"conversationId\":\"" + UUID.randomUUID() + "\",\"userId\":\"conformance\",\"resume\":true}";
        String token = client.sign("POST", "/sessions", body);

        assertThat(client.sendWithToken("POST", "/sessions", body, null).status())
                .isEqualTo(401);
        assertThat(client.sendWithToken("POST", "/sessions", body.replace("conformance", "intruder"), token)
                        .status())
                .isEqualTo(401);
        assertThat(client.sendWithToken("POST", "/sessions", body, token).status())
                .isEqualTo(201);
        assertThat(client.sendWithToken("POST", "/sessions", body, token).status())
                .as("a replayed token")
                .isEqualTo(401);
    }

    @Test
    void openingASessionIsIdempotentAndItsIdIsTheConversationId() {
        UUID conversation = UUID.randomUUID();

        TestHttp.Response created = worker.client.openSession(conversation, "conformance");
        TestHttp.Response again = worker.client.openSession(conversation, "conformance");

        assertThat(created.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(200);
        assertThat(created.json().get("id").asString()).isEqualTo(conversation.toString());
    }

    @Test
    void aTurnStreamsSchemaValidEventsThatBelongToIt() {
        UUID conversation = UUID.randomUUID();
        worker.client.openSession(conversation, "conformance");
        String messageId = UUID.randomUUID().toString();

        try (var stream = worker.client.subscribe(conversation, null)) {
            assertThat(stream.status()).isEqualTo(200);
            assertThat(stream.contentType()).startsWith("text/event-stream");
            assertThat(worker.client.message(conversation, messageId, "Say hi.").status())
                    .isEqualTo(202);
            await().atMost(worker.turnTimeout).until(() -> turnEnds(stream) == 1);

            List<SseEvent> events = stream.events();
            events.forEach(this::assertMatchesSchema);
            assertThat(events).extracting(SseEvent::id).doesNotContainNull().doesNotHaveDuplicates();
            List<SseEvent> turn = events.stream()
                    .dropWhile(e -> !e.type().equals("turn.started"))
                    .toList();
            assertThat(stream.data(turn.getFirst()).get("messageId").asString()).isEqualTo(messageId);
            String turnId = stream.data(turn.getFirst()).get("turnId").asString();
            assertThat(turn.stream().filter(e -> !e.type().equals("session.status")))
                    .allSatisfy(e ->
                            assertThat(stream.data(e).get("turnId").asString()).isEqualTo(turnId));
            assertThat(turn.getLast().type()).isIn(TURN_ENDS);
        }
    }

    @Test
    void aRepeatedMessageRunsOnceAndTurnsNeverOverlap() {
        UUID conversation = UUID.randomUUID();
        worker.client.openSession(conversation, "conformance");

        try (var stream = worker.client.subscribe(conversation, null)) {
            assertThat(worker.client.message(conversation, "m1", "First.").status())
                    .isEqualTo(202);
            TestHttp.Response repeat = worker.client.message(conversation, "m1", "First.");
            assertThat(repeat.status()).isEqualTo(202);
            int second = worker.client.message(conversation, "m2", "Second.").status();
            assertThat(second).isIn(202, 409);
            if (second == 409) {
                await().atMost(worker.turnTimeout).until(() -> turnEnds(stream) == 1);
                assertThat(worker.client.message(conversation, "m2", "Second.").status())
                        .isEqualTo(202);
            }
            await().atMost(worker.turnTimeout).until(() -> turnEnds(stream) == 2);

            List<String> turnEvents = stream.types().stream()
                    .filter(type -> type.equals("turn.started") || TURN_ENDS.contains(type))
                    .map(type -> type.equals("turn.started") ? "start" : "end")
                    .toList();
            assertThat(turnEvents).containsExactly("start", "end", "start", "end");
        }
    }

    @Test
    void lastEventIdResumesExactlyAfterThatEvent() {
        UUID conversation = UUID.randomUUID();
        worker.client.openSession(conversation, "conformance");
        List<SseEvent> all;
        try (var stream = worker.client.subscribe(conversation, null)) {
            worker.client.message(conversation, "m1", "Say hi.");
            await().atMost(worker.turnTimeout).until(() -> turnEnds(stream) == 1);
            all = stream.events();
        }
        int cut = all.size() / 2;

        try (var resumed = worker.client.subscribe(conversation, all.get(cut).id())) {
            List<String> expected =
                    all.subList(cut + 1, all.size()).stream().map(SseEvent::id).toList();
            await().atMost(Duration.ofSeconds(10)).until(() -> resumed.events().size() >= expected.size());
            assertThat(resumed.events().subList(0, expected.size()))
                    .extracting(SseEvent::id)
                    .containsExactlyElementsOf(expected);
        }
    }

    @Test
    void interruptAndUnknownSessions() {
        UUID conversation = UUID.randomUUID();
        worker.client.openSession(conversation, "conformance");

        assertThat(worker.client.interrupt(conversation).status()).isEqualTo(202);
        assertThat(worker.client.interrupt(UUID.randomUUID()).status()).isEqualTo(404);
        assertThat(worker.client.message(UUID.randomUUID(), "m1", "hello").status())
                .isEqualTo(404);
        try (var stream = worker.client.subscribe(UUID.randomUUID(), null)) {
            assertThat(stream.status()).isEqualTo(404);
        }
    }

    @Test
    void deletedSessionIsGone() {
        UUID conversation = UUID.randomUUID();
        worker.client.openSession(conversation, "conformance");

        assertThat(worker.client.delete(conversation).status()).isEqualTo(204);
        assertThat(worker.client.delete(conversation).status()).isEqualTo(204);
        assertThat(worker.client.message(conversation, "m1", "hello").status()).isEqualTo(404);
    }

    private static long turnEnds(WorkerContractClient.Subscription stream) {
        return stream.types().stream().filter(TURN_ENDS::contains).count();
    }

    private void assertMatchesSchema(SseEvent event) {
        Schema schema = schemas.get(event.type());
        assertThat(schema).as("a schema for event type %s", event.type()).isNotNull();
        JsonNode data = TestHttp.JSON.readTree(event.data());
        List<Error> errors = schema.validate(data);
        assertThat(errors).as("%s %s", event.type(), event.data()).isEmpty();
    }

    static Map<String, Schema> loadSchemas(Path directory) throws IOException {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        Map<String, Schema> loaded = new HashMap<>();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> listing = Files.list(directory)) {
            listing.filter(p -> p.getFileName().toString().endsWith(".schema.json"))
                    .forEach(files::add);
        }
        for (Path file : files) {
            String type = file.getFileName().toString().replace(".schema.json", "");
            loaded.put(type, registry.getSchema(Files.readString(file)));
        }
        return loaded;
    }
}
