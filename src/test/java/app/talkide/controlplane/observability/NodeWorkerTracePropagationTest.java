package app.talkide.controlplane.observability;

import static app.talkide.controlplane.support.CapturedSpans.describe;
import static app.talkide.controlplane.support.CapturedSpans.first;
import static app.talkide.controlplane.support.CapturedSpans.isServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.support.CapturedSpans;
import app.talkide.controlplane.support.CapturesSpans;
import app.talkide.controlplane.support.NodeWorkerTests;
import app.talkide.controlplane.support.TestHttp;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
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
// Stays: the context runs a Node worker process and data directory of its own, which no other class reuses.
@DirtiesContext
@CapturesSpans
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.localdev.worker=node",
            "talkide.worker.delivery.initial-backoff=50ms",
            "talkide.worker.delivery.max-backoff=1s"
        })
class NodeWorkerTracePropagationTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    /** The engine starts in seconds on a quiet machine; a busy shared one is much slower. */
    static final Duration TURN = Duration.ofMinutes(3);

    @BeforeAll
    static void nodeIsThere() {
        NodeWorkerTests.requireNodeAndBuildTheWorker();
    }

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        NodeWorkerTests.freshDataDir(registry, "talkide-node-trace-");
    }

    @Autowired
    CapturedSpans spans;

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

        SpanData browser = spans.awaitSpan(
                Duration.ofSeconds(30), span -> isServer(span, "POST", "/api/conversations/{id}/messages"));
        String trace = browser.getTraceId();
        // The turn's last calls back: the tool's completion and the second model call's usage.
        await().atMost(TURN)
                .until(() -> spans.inTrace(trace).stream()
                                .filter(span -> isServer(span, "POST", "/api/internal/worker/tool-events"))
                                .count()
                        >= 2);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> spans.inTrace(trace).stream()
                                .filter(span -> isServer(span, "POST", "/api/internal/worker/usage"))
                                .count()
                        >= 2);
        List<SpanData> inTrace = spans.inTrace(trace);
        String names = describe(inTrace);

        SpanData delivery = first(inTrace, span -> span.getName().equals("deliver message"));
        assertThat(delivery.getParentSpanId()).as(names).isEqualTo(browser.getSpanId());
        for (String callBack : List.of(
                "/api/v1/worker-gateway/token/mint",
                "/api/internal/worker/activity",
                "/api/internal/worker/tool-events",
                "/api/internal/worker/usage")) {
            SpanData call = first(inTrace, span -> isServer(span, "POST", callBack));
            assertThat(call.getParentSpanId())
                    .as("the Node worker passed the command's context on to " + callBack + "\n" + names)
                    .isEqualTo(delivery.getSpanId());
        }
        SpanData upstream = first(inTrace, span -> span.getName().equals("anthropic messages"));
        SpanData gateway = first(inTrace, span -> span.getSpanId().equals(upstream.getParentSpanId()));
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("uri")))
                .as(names)
                .contains("/api/internal/gateway/anthropic");
        assertThat(gateway.getParentSpanId()).isEqualTo(delivery.getSpanId());
        assertThat(names).doesNotContain("Trace me");
    }
}
