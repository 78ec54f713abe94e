package app.talkide.controlplane.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.local.runtime.NodeWorkerProcess;
import app.talkide.controlplane.support.TestHttp;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One trace follows a user message through the production worker: the browser's POST, the delivery's
 * signed command to the Node worker (a child process, the real engine, the simulator as the model), and
 * the worker's calls back: the mint and the gateway call made through its local gateway proxy (whose
 * upstream call is a child span) and its reports, all children of the delivery through the W3C
 * {@code traceparent} the worker passes on. Needs Node.js 20+ and npm, like the other node-worker tests.
 */
@Tag("node-worker")
@DirtiesContext
@AutoConfigureTracing
@Import(NodeWorkerTracePropagationTest.Spans.class)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.localdev.worker=node",
            "management.tracing.sampling.probability=1.0",
            "management.opentelemetry.tracing.export.schedule-delay=100ms",
            "talkide.worker.delivery.initial-backoff=50ms",
            "talkide.worker.delivery.max-backoff=1s"
        })
class NodeWorkerTracePropagationTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    /** The engine starts in seconds on a quiet machine; a busy shared one is much slower. */
    static final Duration TURN = Duration.ofMinutes(3);

    @TestConfiguration(proxyBeanMethods = false)
    static class Spans {
        @Bean
        InMemorySpanExporter inMemorySpanExporter() {
            return InMemorySpanExporter.create();
        }
    }

    @BeforeAll
    static void nodeIsThere() {
        NodeWorkerProcess.missingRuntime().ifPresent(missing -> {
            throw new IllegalStateException("This test runs the Node worker: " + missing);
        });
        NodeWorkerProcess.prepare(Path.of("worker").toAbsolutePath());
    }

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) throws IOException {
        Path dataDir = Files.createTempDirectory("talkide-node-trace-");
        registry.add("talkide.data-dir", dataDir::toString);
    }

    @Autowired
    InMemorySpanExporter spans;

    @LocalServerPort
    int port;

    @Test
    void oneTraceSpansTheBrowserCallTheNodeWorkersMintGatewayCallAndReports() {
        TestHttp http = new TestHttp(port);
        TestHttp.Response created =
                http.postJson("/api/conversations", "{\"tenant\":\"demo\",\"env\":\"dev\"}", "Authorization", DEV);
        assertThat(created.status()).isEqualTo(201);
        String conversation = created.json().get("id").asString();

        String body = TestHttp.JSON
                .createObjectNode()
                .put("clientMessageId", "c1")
                .put("text", "Trace me. [[sim:tool_use=Bash {\"command\":\"ls\"}]]")
                .toString();
        assertThat(http.postJson("/api/conversations/" + conversation + "/messages", body, "Authorization", DEV)
                        .status())
                .isEqualTo(202);

        SpanData browser = await().atMost(Duration.ofSeconds(30))
                .until(() -> find(span -> isServer(span, "/api/conversations/{id}/messages")), Optional::isPresent)
                .orElseThrow();
        String trace = browser.getTraceId();
        // The turn's last calls back: the tool's completion and the second model call's usage.
        await().atMost(TURN)
                .until(() -> inTrace(trace).stream()
                                .filter(span -> isServer(span, "/api/internal/worker/tool-events"))
                                .count()
                        >= 2);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> inTrace(trace).stream()
                                .filter(span -> isServer(span, "/api/internal/worker/usage"))
                                .count()
                        >= 2);
        List<SpanData> inTrace = inTrace(trace);
        String names =
                inTrace.stream().map(NodeWorkerTracePropagationTest::describe).collect(Collectors.joining("\n"));

        SpanData delivery = only(inTrace, span -> span.getName().equals("deliver message"), names);
        assertThat(delivery.getParentSpanId()).as(names).isEqualTo(browser.getSpanId());
        for (String callBack : List.of(
                "/api/v1/worker-gateway/token/mint",
                "/api/internal/worker/activity",
                "/api/internal/worker/tool-events",
                "/api/internal/worker/usage")) {
            SpanData call = only(inTrace, span -> isServer(span, callBack), names);
            assertThat(call.getParentSpanId())
                    .as("the Node worker passed the command's context on to " + callBack + "\n" + names)
                    .isEqualTo(delivery.getSpanId());
        }
        SpanData upstream = only(inTrace, span -> span.getName().equals("anthropic messages"), names);
        SpanData gateway = only(inTrace, span -> span.getSpanId().equals(upstream.getParentSpanId()), names);
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("uri")))
                .as(names)
                .contains("/api/internal/gateway/anthropic");
        assertThat(gateway.getParentSpanId()).isEqualTo(delivery.getSpanId());
        assertThat(names).doesNotContain("Trace me");
    }

    private List<SpanData> inTrace(String trace) {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(trace))
                .toList();
    }

    private Optional<SpanData> find(Predicate<SpanData> wanted) {
        return spans.getFinishedSpanItems().stream().filter(wanted).findFirst();
    }

    private static SpanData only(List<SpanData> spans, Predicate<SpanData> wanted, String names) {
        List<SpanData> found = spans.stream().filter(wanted).toList();
        assertThat(found).as("in the trace:\n" + names).isNotEmpty();
        return found.getFirst();
    }

    private static boolean isServer(SpanData span, String uri) {
        return uri.equals(span.getAttributes().get(AttributeKey.stringKey("uri")))
                && "POST".equals(span.getAttributes().get(AttributeKey.stringKey("method")));
    }

    private static String describe(SpanData span) {
        return span.getName() + " " + span.getSpanId() + " <- " + span.getParentSpanId() + " " + span.getAttributes();
    }
}
