package app.talkide.controlplane.workercontract;

import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;

import app.talkide.controlplane.local.referenceworker.ReferenceWorker;
import app.talkide.controlplane.local.referenceworker.ReferenceWorkerSettings;
import app.talkide.controlplane.local.runtime.NodeWorkerProcess;
import app.talkide.controlplane.support.AnthropicStreams;
import app.talkide.controlplane.support.WorkerContractClient;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.TestCommandSigning;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * The worker the conformance test talks to: the one named by {@code -Dworker.url}, {@code -Dworker.commandKey},
 * {@code -Dworker.tenant}, {@code -Dworker.env}; or, when no URL is given, an embedded reference worker whose
 * control plane (mint endpoint and gateway) is a WireMock answering every model call with a short text.
 */
final class WorkerUnderTest implements AutoCloseable {

    final URI baseUrl;
    final WorkerContractClient client;
    final Duration turnTimeout;
    private final AutoCloseable embedded;
    private final WireMockServer controlPlane;

    private WorkerUnderTest(
            URI baseUrl,
            String commandKey,
            TenantEnvironmentId tenantEnvironment,
            Duration turnTimeout,
            AutoCloseable embedded,
            WireMockServer controlPlane) {
        this.baseUrl = baseUrl;
        this.client = new WorkerContractClient(
                baseUrl, TestCommandSigning.signer(commandKey, tenantEnvironment, Clock.systemUTC()));
        this.turnTimeout = turnTimeout;
        this.embedded = embedded;
        this.controlPlane = controlPlane;
    }

    static WorkerUnderTest fromSystemProperties() {
        Duration turnTimeout = Duration.ofSeconds(Long.getLong("worker.turnTimeoutSeconds", 120));
        String url = System.getProperty("worker.url");
        if (url != null && !url.isBlank()) {
            TenantEnvironmentId tenantEnvironment =
                    TenantEnvironmentId.of(required("worker.tenant"), required("worker.env"));
            return new WorkerUnderTest(
                    URI.create(url), required("worker.commandKey"), tenantEnvironment, turnTimeout, null, null);
        }
        return embedded(turnTimeout);
    }

    /**
     * The Node worker ({@code worker/}) as a child process, built first if needed, with its scripted agent
     * (the engine needs a model; the contract does not). Fails saying what to install when Node is missing.
     */
    static WorkerUnderTest node() {
        NodeWorkerProcess.missingRuntime().ifPresent(missing -> {
            throw new IllegalStateException("The Node worker's tests need Node.js 20+ and npm: " + missing);
        });
        Path workerDir = Path.of("worker").toAbsolutePath();
        NodeWorkerProcess.prepare(workerDir);
        TenantEnvironmentId tenantEnvironment = TenantEnvironmentId.of("conformance", "dev");
        WireMockServer controlPlane = mockControlPlane();
        String commandKey = TestCommandSigning.workerCommandKey(tenantEnvironment);
        try {
            NodeWorkerProcess worker = NodeWorkerProcess.start(
                    workerDir,
                    Map.of(
                            "TALKIDE_TENANT",
                            tenantEnvironment.tenant(),
                            "TALKIDE_ENV",
                            tenantEnvironment.env(),
                            "TALKIDE_GATEWAY_BASE_URL",
                            "http://127.0.0.1:" + controlPlane.port(),
                            "TALKIDE_WORKER_IDENTITY_TOKEN",
                            "tkwi_" + "c".repeat(43),
                            "TALKIDE_WORKER_COMMAND_KEY",
                            commandKey,
                            "CLAUDE_CONFIG_DIR",
                            Files.createTempDirectory("conformance-node-").toString(),
                            "TALKIDE_WORKER_PORT",
                            "0",
                            "TALKIDE_WORKER_HOST",
                            "127.0.0.1",
                            "TALKIDE_WORKER_HEARTBEAT",
                            "PT2S",
                            "TALKIDE_WORKER_AGENT",
                            "scripted"),
                    Duration.ofSeconds(60));
            return new WorkerUnderTest(
                    worker.baseUrl(), commandKey, tenantEnvironment, Duration.ofSeconds(20), worker, controlPlane);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static WireMockServer mockControlPlane() {
        WireMockServer controlPlane =
                new WireMockServer(WireMockConfiguration.options().dynamicPort());
        controlPlane.start();
        controlPlane.stubFor(post("/api/v1/worker-gateway/token/mint")
                .willReturn(okJson("{\"token\":\"minted\",\"expiresIn\":120}")));
        // Slow enough that a second message sent at once meets a running turn.
        controlPlane.stubFor(post(urlPathEqualTo("/api/internal/gateway/anthropic/v1/messages"))
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text("Conformance ", "answer."))
                        .withFixedDelay(400)));
        return controlPlane;
    }

    private static WorkerUnderTest embedded(Duration turnTimeout) {
        TenantEnvironmentId tenantEnvironment = TenantEnvironmentId.of("conformance", "dev");
        WireMockServer controlPlane = mockControlPlane();
        String commandKey = TestCommandSigning.workerCommandKey(tenantEnvironment);
        try {
            ReferenceWorker worker = ReferenceWorker.start(
                    ReferenceWorkerSettings.fromEnvironment(Map.of(
                            ReferenceWorkerSettings.TENANT,
                            tenantEnvironment.tenant(),
                            ReferenceWorkerSettings.ENV,
                            tenantEnvironment.env(),
                            ReferenceWorkerSettings.GATEWAY_BASE_URL,
                            "http://127.0.0.1:" + controlPlane.port(),
                            ReferenceWorkerSettings.IDENTITY_TOKEN,
                            "tkwi_" + "c".repeat(43),
                            ReferenceWorkerSettings.COMMAND_KEY,
                            commandKey,
                            ReferenceWorkerSettings.CONFIG_DIR,
                            Files.createTempDirectory("conformance-").toString(),
                            ReferenceWorkerSettings.HEARTBEAT,
                            "PT2S")),
                    Clock.systemUTC());
            return new WorkerUnderTest(
                    worker.baseUrl(), commandKey, tenantEnvironment, Duration.ofSeconds(20), worker, controlPlane);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("-Dworker.url needs -D" + property + " as well");
        }
        return value;
    }

    @Override
    public void close() {
        if (embedded != null) {
            try {
                embedded.close();
            } catch (Exception e) {
                throw new IllegalStateException("the worker under test did not stop", e);
            }
        }
        if (controlPlane != null) {
            controlPlane.stop();
        }
    }
}
