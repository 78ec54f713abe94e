package app.talkide.controlplane.observability;

import static app.talkide.controlplane.support.CapturedSpans.describe;
import static app.talkide.controlplane.support.CapturedSpans.first;
import static app.talkide.controlplane.support.CapturedSpans.isServer;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.AnthropicStreams;
import app.talkide.controlplane.support.CapturedSpans;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import app.talkide.controlplane.support.WorkerFlowContext;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import com.github.tomakehurst.wiremock.WireMockServer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/**
 * One trace follows a user message over real sockets: the browser's POST, the outbox delivery and its
 * signed command to the embedded reference worker, and the worker's calls back (mint, then the gateway,
 * whose upstream call is a child span) carrying the W3C {@code traceparent}; the turn's end, read from the
 * worker's stream, is logged in a span of the same trace, so its INFO line carries the trace id.
 */
@DatabaseTest
@ExtendWith(OutputCaptureExtension.class)
@WorkerFlowContext
class TracePropagationTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    static final String MODEL = WorkerFlowContext.MODEL;
    static final WireMockServer anthropic = WireMockUpstream.server();

    @Autowired
    ApplicationContext context;

    @Autowired
    CapturedSpans spans;

    @LocalServerPort
    int port;

    @Test
    void oneTraceSpansTheBrowserCallTheDeliveryTheWorkersMintAndTheGatewayWithItsUpstream(CapturedOutput output) {
        anthropic.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text("Hello", ", world"))));
        TenantEnvironmentId tenantEnvironment = Fixtures.tenantEnvironment(context);
        context.getBean(Memberships.class).grant(tenantEnvironment, "dev");
        TestHttp http = new TestHttp(port);
        TestHttp.Response created = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"" + tenantEnvironment.tenant() + "\",\"env\":\"" + tenantEnvironment.env() + "\"}",
                "Authorization",
                DEV);
        assertThat(created.status()).isEqualTo(201);
        String conversation = created.json().get("id").asString();

        TestHttp.Response sent = http.postJson(
                "/api/conversations/" + conversation + "/messages",
                "{\"clientMessageId\":\"c1\",\"text\":\"Trace me\"}",
                "Authorization",
                DEV);
        assertThat(sent.status()).isEqualTo(202);

        SpanData browser = spans.awaitSpan(
                Duration.ofSeconds(30), span -> isServer(span, "POST", "/api/conversations/{id}/messages"));
        String trace = browser.getTraceId();

        SpanData upstream = spans.awaitSpan(
                Duration.ofSeconds(60),
                span -> span.getTraceId().equals(trace) && span.getName().equals("anthropic messages"));
        // The gateway's server span ends after its upstream child, when the response is complete.
        spans.awaitSpan(Duration.ofSeconds(30), span -> span.getSpanId().equals(upstream.getParentSpanId()));
        List<SpanData> inTrace = spans.inTrace(trace);
        String names = describe(inTrace);

        SpanData delivery = first(inTrace, span -> span.getName().equals("deliver message"));
        assertThat(delivery.getParentSpanId()).as(names).isEqualTo(browser.getSpanId());
        SpanData mint = first(inTrace, span -> isServer(span, "POST", "/api/v1/worker-gateway/token/mint"));
        assertThat(mint.getParentSpanId())
                .as("the worker passed the command's context on")
                .isEqualTo(delivery.getSpanId());
        SpanData gateway = first(inTrace, span -> span.getSpanId().equals(upstream.getParentSpanId()));
        assertThat(gateway.getParentSpanId()).isEqualTo(delivery.getSpanId());
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("uri")))
                .contains("/api/internal/gateway/anthropic");
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model")))
                .isEqualTo(MODEL);
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("talkide.gateway.upstream_status")))
                .isEqualTo("200");
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("talkide.gateway.outcome")))
                .isEqualTo("completed");
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("gen_ai.usage.output_tokens")))
                .isNotNull();
        assertThat(gateway.getAttributes().get(AttributeKey.stringKey("talkide.gateway.cost_micros")))
                .isNotNull();
        assertThat(upstream.getParentSpanId()).as(names).isEqualTo(gateway.getSpanId());
        assertThat(upstream.getAttributes().get(AttributeKey.stringKey("http.response.status_code")))
                .isEqualTo("200");

        SpanData turn = spans.awaitSpan(
                Duration.ofSeconds(30),
                span -> span.getTraceId().equals(trace) && span.getName().equals("turn completed"));
        assertThat(turn.getParentSpanId())
                .as("the turn's end continues the message's trace")
                .isEqualTo(browser.getSpanId());
        String turnLine = output.getOut()
                .lines()
                .filter(line -> line.contains("TurnLog") && line.contains(" completed"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no turn line in:\n" + output.getOut()));
        assertThat(turnLine).contains(trace).contains(turn.getSpanId());
        // No secret rides on a span.
        assertThat(names).doesNotContain("sk-ant-test-key").doesNotContain("Trace me");
    }
}
