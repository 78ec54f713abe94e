package app.talkide.controlplane.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** An embedded worker's paths: absolute, under the directory the control plane runs in, one tree per worker. */
class WorkerHomeTest {

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @Test
    void aRelativeDataDirectoryResolvesAgainstTheDirectoryTheControlPlaneRunsIn() {
        Path cwd = Path.of("").toAbsolutePath();

        WorkerHome home = WorkerHome.of(Path.of("./data/workers"), DEMO);

        assertThat(home.dir()).isEqualTo(cwd.resolve("data/workers/demo-dev"));
        assertThat(home.secret()).isEqualTo(cwd.resolve("data/workers/demo-dev/secret"));
        assertThat(home.sessions()).isEqualTo(cwd.resolve("data/workers/demo-dev/claude"));
        assertThat(home.workingTree()).isEqualTo(cwd.resolve("data/workers/demo-dev/workspace"));
        assertThat(home.gitCeiling()).isEqualTo(cwd.resolve("data"));
    }

    @Test
    void everyPathIsAbsoluteAndNormalized() {
        WorkerHome home = WorkerHome.of(Path.of("data/../data/./workers"), TenantEnvironmentId.of("acme", "prod"));

        for (Path path :
                new Path[] {home.dir(), home.secret(), home.sessions(), home.workingTree(), home.gitCeiling()}) {
            assertThat(path).isAbsolute().isNormalized();
        }
        assertThat(home.dir()).isEqualTo(Path.of("").toAbsolutePath().resolve("data/workers/acme-prod"));
    }

    @Test
    void anAbsoluteDirectoryStaysWhereItIs() {
        WorkerHome home = WorkerHome.of(Path.of("/srv/talkide/workers"), DEMO);

        assertThat(home.workingTree()).isEqualTo(Path.of("/srv/talkide/workers/demo-dev/workspace"));
        assertThat(home.gitCeiling()).isEqualTo(Path.of("/srv/talkide"));
    }
}
