package app.talkide.controlplane.observability;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.gateway.AnthropicFixtures;
import app.talkide.controlplane.gateway.GatewayTestSupport;
import app.talkide.controlplane.support.CapturedSpans;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import app.talkide.controlplane.support.WorkerFlowContext;
import com.github.tomakehurst.wiremock.WireMockServer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/**
 * Whatever worker calls back (the Node worker, the reference worker, another implementation), a call that
 * carries the W3C {@code traceparent} of the command it serves is a server span of that trace, child of
 * the span it names: the mint endpoint, the gateway and the reports endpoints alike.
 */
@DatabaseTest
@WorkerFlowContext
class WorkerCallsContinueTheTraceTest {

    static final SecureRandom RANDOM = new SecureRandom();
    static final WireMockServer anthropic = WireMockUpstream.server();

    @Autowired
    ApplicationContext context;

    @Autowired
    CapturedSpans spans;

    @LocalServerPort
    int port;

    @Test
    void mintGatewayAndReportCallsCarryingATraceparentAreServerSpansOfThatTrace() {
        anthropic.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(
                                AnthropicFixtures.json(AnthropicFixtures.OPUS, AnthropicFixtures.usage(5, 0, 0, 7)))));
        GatewayTestSupport worker = GatewayTestSupport.newWorker(context);
        String identity =
                Fixtures.identityToken(context, worker.tenantEnvironment()).token();
        TestHttp http = new TestHttp(port);
        String conversation = worker.conversation().id().toString();

        Parent mint = Parent.random();
        TestHttp.Response minted = http.postJson(
                "/api/v1/worker-gateway/token/mint",
                "{\"conversationId\":\"" + conversation + "\"}",
                "Authorization",
                "Bearer " + identity,
                "traceparent",
                mint.header());
        assertThat(minted.status()).isEqualTo(200);

        Parent gateway = Parent.random();
        TestHttp.Response answered = http.postJson(
                GatewayTestSupport.MESSAGES,
                "{\"model\":\"" + AnthropicFixtures.OPUS
                        + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                "X-Worker-Token",
                minted.json().get("token").asString(),
                "traceparent",
                gateway.header());
        assertThat(answered.status()).as(answered.body()).isEqualTo(200);

        Parent report = Parent.random();
        TestHttp.Response reported = http.postJson(
                "/api/internal/worker/activity",
                "{\"id\":\"a-1\",\"conversationId\":\"" + conversation
                        + "\",\"activity\":\"build\",\"message\":\"tests passed\"}",
                "X-Worker-Token",
                worker.token(),
                "traceparent",
                report.header());
        assertThat(reported.status()).as(reported.body()).isBetween(200, 299);

        assertThat(serverSpanOf(mint).getAttributes().get(AttributeKey.stringKey("uri")))
                .isEqualTo("/api/v1/worker-gateway/token/mint");
        assertThat(serverSpanOf(gateway).getAttributes().get(AttributeKey.stringKey("uri")))
                .contains("/api/internal/gateway/anthropic");
        assertThat(serverSpanOf(report).getAttributes().get(AttributeKey.stringKey("uri")))
                .contains("/api/internal/worker/");
    }

    /** The server span in the caller's trace; it must hang off the caller's span, not start a trace. */
    private SpanData serverSpanOf(Parent caller) {
        List<SpanData> found = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> spans.all().stream()
                                .filter(span -> span.getKind() == SpanKind.SERVER
                                        && span.getTraceId().equals(caller.traceId()))
                                .toList(),
                        list -> !list.isEmpty());
        assertThat(found).hasSize(1);
        assertThat(found.getFirst().getParentSpanId()).isEqualTo(caller.spanId());
        return found.getFirst();
    }

    record Parent(String traceId, String spanId) {

        static Parent random() {
            return new Parent(hex(16), hex(8));
        }

        String header() {
            return "00-" + traceId + "-" + spanId + "-01";
        }

        private static String hex(int bytes) {
            byte[] value = new byte[bytes];
            RANDOM.nextBytes(value);
            return HexFormat.of().formatHex(value);
        }
    }
}
