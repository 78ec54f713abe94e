package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.budget.BudgetStatus;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/** Local mode without a key, as a developer runs it: the gateway's upstream is the built-in simulator. */
@DatabaseTest
// The configuration of the browser tests, so they share one cached context (its user is a new one of its own).
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "talkide.gateway.api-key=")
class GatewayWithSimulatorTest {

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    UserBudgetService budgets;

    @Autowired
    AnthropicUpstream upstream;

    @Test
    void aStreamingCallThroughTheGatewayIsAnsweredBySimulatorAndBilled() {
        GatewayTestSupport worker = GatewayTestSupport.newWorker(context);

        TestHttp.Response response = new TestHttp(port)
                .postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 1024), "X-Worker-Token", worker.token());

        assertThat(upstream.description()).doesNotContain("api.anthropic.com");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("content-type")).startsWith("text/event-stream");
        assertThat(response.body()).contains("event: message_start").contains("event: message_stop");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            BudgetStatus status = budgets.status(worker.userId());
            assertThat(status.spentMicros()).isPositive();
            assertThat(status.reservedMicros()).isZero();
        });
    }
}
