package app.talkide.controlplane.worker.delivery;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.InterruptRequested;
import app.talkide.controlplane.support.ApplicationWithoutWebTest;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.worker.TestWorkerLocators;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.client.WorkerClient;
import app.talkide.controlplane.worker.stream.WorkerStatusNotices;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

/** "Stop" reaches the worker as a signed interrupt; a worker that cannot be reached is shown to the user. */
@DatabaseTest
@ApplicationWithoutWebTest
class InterruptForwarderTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    ConversationDirectory directory;

    @Autowired
    WorkerClient client;

    @Autowired
    WorkerStatusNotices notices;

    @Autowired
    WorkerProperties properties;

    @Autowired
    ConversationEventLog eventLog;

    WireMockServer worker;
    Conversation conversation;

    @BeforeEach
    void setUp() {
        worker = new WireMockServer(WireMockConfiguration.options().dynamicPort());
        worker.start();
        conversation = Fixtures.conversation(context, Fixtures.tenantEnvironment(context), "dev");
    }

    @AfterEach
    void tearDown() {
        worker.stop();
    }

    @Test
    void interruptIsSentToTheWorkerSigned() {
        String path = "/sessions/" + conversation.id() + "/interrupt";
        worker.stubFor(post(urlEqualTo(path)).willReturn(aResponse().withStatus(202)));

        forwarder(URI.create(worker.baseUrl())).onInterruptRequested(new InterruptRequested(conversation.id(), "dev"));

        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> worker.verify(postRequestedFor(urlEqualTo(path))
                        .withHeader("X-Worker-Token", matching("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+"))));
    }

    @Test
    void unreachableWorkerIsShownAsWorkerStatus() {
        URI nobody = URI.create(worker.baseUrl());
        worker.stop();

        forwarder(nobody).onInterruptRequested(new InterruptRequested(conversation.id(), "dev"));

        await().atMost(Duration.ofSeconds(10))
                .until(() -> eventLog.readAfter(conversation.id(), 0, 10).stream()
                        .anyMatch(e ->
                                e.type().equals("worker.status") && e.data().contains("unreachable")));
    }

    /** During a rollout the old pod still holds the session: the worker answered, so it is not "unreachable". */
    @Test
    void aSessionStillHeldByThePreviousPodIsShownAsAHandoverNotAsUnreachable() {
        String path = "/sessions/" + conversation.id() + "/interrupt";
        worker.stubFor(post(urlEqualTo(path))
                .willReturn(aResponse()
                        .withStatus(503)
                        .withHeader("Retry-After", "5")
                        .withHeader("Content-Type", "application/problem+json")
                        .withBody("{\"type\":\"https://talkide.app/problems/session-held-elsewhere\","
                                + "\"title\":\"Another worker serves this session\",\"status\":503}")));

        forwarder(URI.create(worker.baseUrl())).onInterruptRequested(new InterruptRequested(conversation.id(), "dev"));

        await().atMost(Duration.ofSeconds(10))
                .until(() -> eventLog.readAfter(conversation.id(), 0, 10).stream()
                        .anyMatch(e ->
                                e.type().equals("worker.status") && e.data().contains("\"handover\"")));
        assertThat(eventLog.readAfter(conversation.id(), 0, 10))
                .noneMatch(e -> e.data().contains("unreachable"));
    }

    /** Any other 503 (a stopping worker) is still retried and shown as unreachable. */
    @Test
    void aStoppingWorkerIsStillShownAsUnreachable() {
        String path = "/sessions/" + conversation.id() + "/interrupt";
        worker.stubFor(post(urlEqualTo(path))
                .willReturn(aResponse()
                        .withStatus(503)
                        .withBody("{\"type\":\"https://talkide.app/problems/worker-stopping\",\"status\":503}")));

        forwarder(URI.create(worker.baseUrl())).onInterruptRequested(new InterruptRequested(conversation.id(), "dev"));

        await().atMost(Duration.ofSeconds(10))
                .until(() -> eventLog.readAfter(conversation.id(), 0, 10).stream()
                        .anyMatch(e ->
                                e.type().equals("worker.status") && e.data().contains("unreachable")));
    }

    private InterruptForwarder forwarder(URI workerUrl) {
        return new InterruptForwarder(
                directory,
                TestWorkerLocators.fixed(
                        id -> new WorkerLocation(id, workerUrl, WorkerReadiness.READY, "test worker"), properties),
                client,
                notices,
                properties);
    }
}
