package app.talkide.controlplane.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Local mode as the run command starts it: demo/dev seeded, its embedded worker running with its Secret
 * as owner-only files and its working tree a git repository, and after a control-plane restart the same
 * identity token still valid and the working tree as it was left.
 */
class LocalDevRestartTest {

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @Test
    void embeddedWorkerKeepsItsSecretAndWorkingTreeAcrossARestart(@TempDir Path dataDir) throws Exception {
        Map<String, Object> database = TestDatabase.freshSettings();
        Path secret = dataDir.resolve("workers/demo-dev/secret");
        Path workingTree = dataDir.resolve("workers/demo-dev/workspace");
        String identity;
        try (ConfigurableApplicationContext first = start(dataDir, database)) {
            WorkerLocation worker = first.getBean(WorkerRuntime.class).locate(DEMO);
            assertThat(worker.isReady()).isTrue();
            assertThat(first.getBean(Memberships.class).isMember(DEMO, "dev")).isTrue();
            assertThat(new TestHttp(worker.baseUrl().toString()).get("/readyz").status())
                    .isEqualTo(200);
            identity = Files.readString(secret.resolve("identity-token"));
            assertThat(identity).startsWith("tkwi_");
            assertThat(Files.readString(secret.resolve("command-key"))).contains(":");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret.resolve("identity-token"))))
                    .isEqualTo("rw-------");
            assertThat(workingTree.resolve(".git")).isDirectory();
            Files.writeString(workingTree.resolve("package.json"), "Mara's change");
        }

        try (ConfigurableApplicationContext second = start(dataDir, database)) {
            assertThat(second.getBean(WorkerRuntime.class).locate(DEMO).isReady())
                    .isTrue();
            assertThat(Files.readString(secret.resolve("identity-token"))).isEqualTo(identity);
            assertThat(second.getBean(IdentityTokens.class).verify(identity)).isPresent();
            assertThat(workingTree.resolve("package.json")).hasContent("Mara's change");
        }
    }

    @Test
    void aRevokedIdentityTokenIsReplacedOnTheNextStart(@TempDir Path dataDir) throws Exception {
        Map<String, Object> database = TestDatabase.freshSettings();
        Path tokenFile = dataDir.resolve("workers/demo-dev/secret/identity-token");
        String revoked;
        try (ConfigurableApplicationContext first = start(dataDir, database)) {
            revoked = Files.readString(tokenFile);
            IdentityTokens tokens = first.getBean(IdentityTokens.class);
            tokens.revokeAll(DEMO);
        }

        try (ConfigurableApplicationContext second = start(dataDir, database)) {
            String replaced = Files.readString(tokenFile);
            assertThat(replaced).isNotEqualTo(revoked);
            assertThat(second.getBean(IdentityTokens.class).verify(replaced)).isPresent();
        }
    }

    private static ConfigurableApplicationContext start(Path dataDir, Map<String, Object> database) {
        // Command-line arguments, so they outrank application.yaml as they do for the run command.
        java.util.List<String> args =
                new java.util.ArrayList<>(java.util.List.of("--server.port=0", "--talkide.data-dir=" + dataDir));
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new SpringApplicationBuilder(ControlPlaneApplication.class).run(args.toArray(String[]::new));
    }
}
