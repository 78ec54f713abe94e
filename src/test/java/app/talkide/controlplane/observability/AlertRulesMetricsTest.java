package app.talkide.controlplane.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.gateway.AnthropicFixtures;
import app.talkide.controlplane.gateway.GatewayTestSupport;
import app.talkide.controlplane.helm.MonitoringChart;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import java.time.Duration;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

/**
 * The chart's alert rules name only metrics the application really exports: a running instance (local
 * mode, the simulator as Anthropic) is used the way the alerts watch it, then its Prometheus endpoint is
 * scraped. The provisioning group (Kubernetes runtime only) is checked by {@code ProvisioningAlertMetricsTest}.
 */
@DatabaseTest
// A context of its own (the management port property keeps it apart from the browser tests'): it makes "dev" a
// member of a second tenant-environment and spends dev's budget, which the browser tests, signed in as dev,
// count exactly.
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"talkide.gateway.api-key=", "management.server.port=0"})
class AlertRulesMetricsTest {

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    Environment environment;

    @Autowired
    UserBudgetService budgets;

    @Test
    void everyMetricTheApplicationAlertsNameIsExported() {
        TestHttp http = new TestHttp(port);
        TenantEnvironmentId id = Fixtures.tenantEnvironment(context);
        context.getBean(Memberships.class).grant(id, "dev");
        Conversation conversation = Fixtures.conversation(context, id, "dev");
        GatewayTestSupport worker = new GatewayTestSupport(
                id,
                conversation,
                context.getBean(WorkerTokenIssuer.class)
                        .issue(conversation.scope())
                        .token());
        // A browser watching a conversation: open streams, fan-out lag.
        try (SseClient stream = SseClient.connect(
                "http://127.0.0.1:" + port + "/api/conversations/"
                        + worker.conversation().id() + "/stream",
                "Authorization",
                TestHttp.basic("dev", "dev"))) {
            // A streamed answer (duration, overhead, upstream status, tokens, cost) ...
            TestHttp.Response answered = http.postJson(
                    GatewayTestSupport.MESSAGES,
                    AnthropicFixtures.request(AnthropicFixtures.OPUS, true, 64),
                    "X-Worker-Token",
                    worker.token());
            assertThat(answered.status()).as(answered.body()).isEqualTo(200);
            // ... and a denial (budget denials by reason).
            budgets.configure(worker.userId(), new UserBudgetSettings(0L, null, null, null, null));
            assertThat(http.postJson(
                                    GatewayTestSupport.MESSAGES,
                                    AnthropicFixtures.request(AnthropicFixtures.OPUS, true, 64),
                                    "X-Worker-Token",
                                    worker.token())
                            .status())
                    .isEqualTo(429);
        }

        TreeSet<String> wanted = MonitoringChart.metricsOf("talkide-control-plane");
        assertThat(wanted).isNotEmpty();
        TestHttp management = new TestHttp(environment.getRequiredProperty("local.management.port", Integer.class));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            TreeSet<String> exported = MonitoringChart.seriesIn(
                    management.get("/actuator/prometheus").body());
            assertThat(exported).as("exported series").containsAll(wanted);
        });
    }
}
