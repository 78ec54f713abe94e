package app.talkide.controlplane.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The working tree made on a worker's first start: the sample project committed in a repository of its own,
 * git never reaching the repository the data directory sits in, and a tree that exists never touched.
 */
class WorkingTreeTest {

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @Test
    void theFirstStartCommitsTheSampleProjectInARepositoryOfItsOwn(@TempDir Path checkout) throws Exception {
        WorkerHome home = homeInsideARepository(checkout);

        assertThat(WorkingTree.ensure(home)).isTrue();

        Path tree = home.workingTree();
        for (String file : WorkingTree.SAMPLE_FILES) {
            assertThat(tree.resolve(file)).isRegularFile();
        }
        assertThat(git(home, tree, "rev-parse", "--show-toplevel"))
                .isEqualTo(tree.toRealPath().toString());
        assertThat(git(home, tree, "log", "--format=%s")).isEqualTo("Sample project");
        assertThat(git(home, tree, "status", "--porcelain")).isEmpty();
        assertThat(git(home, tree, "config", "user.name")).isEqualTo("Mara");
        assertThat(home.dir())
                .isDirectoryNotContaining(path -> path.getFileName().toString().startsWith("workspace-"));
    }

    @Test
    void gitRunBesideTheTreeStopsBeforeTheEnclosingRepository(@TempDir Path checkout) throws Exception {
        WorkerHome home = homeInsideARepository(checkout);
        WorkingTree.ensure(home);

        for (Path outside : List.of(home.dir(), home.dir().getParent())) {
            assertThat(git(home, outside, "rev-parse", "--show-toplevel")).contains("not a git repository");
        }
        assertThat(git(home, home.workingTree().resolve("src"), "rev-parse", "--show-toplevel"))
                .isEqualTo(home.workingTree().toRealPath().toString());
    }

    @Test
    void anExistingTreeIsLeftAsItIs(@TempDir Path checkout) throws IOException {
        WorkerHome home = homeInsideARepository(checkout);
        Files.createDirectories(home.workingTree());
        Files.writeString(home.workingTree().resolve("mine.txt"), "the user's");

        assertThat(WorkingTree.ensure(home)).isFalse();

        try (var files = Files.list(home.workingTree())) {
            assertThat(files.map(path -> path.getFileName().toString())).containsExactly("mine.txt");
        }
    }

    @Test
    void withoutGitTheTreeIsStillMadeButIsNoRepository(@TempDir Path data) {
        WorkerHome home = WorkerHome.of(data.resolve("workers"), DEMO);

        assertThat(WorkingTree.ensure(home, "/nonexistent/git")).isTrue();

        assertThat(home.workingTree().resolve("package.json")).isRegularFile();
        assertThat(home.workingTree().resolve(".git")).doesNotExist();
    }

    @Test
    void theSampleProjectsTestsPassWithNodeAlone(@TempDir Path data) throws Exception {
        WorkerHome home = WorkerHome.of(data.resolve("workers"), DEMO);
        WorkingTree.ensure(home);

        Process test = new ProcessBuilder("node", "--test")
                .directory(home.workingTree().toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(test.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(test.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(test.exitValue()).as(output).isZero();
        assertThat(output).contains("# pass 3");
    }

    /** {@code checkout} is a git repository, like the TalkIDE checkout local mode usually runs in. */
    private static WorkerHome homeInsideARepository(Path checkout) {
        run(checkout, Map.of(), List.of("git", "init", "-q"));
        return WorkerHome.of(checkout.resolve("data/workers"), DEMO);
    }

    /** Git as Mara's tools run it: with the ceiling local mode gives the worker. */
    private static String git(WorkerHome home, Path dir, String... arguments) {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(arguments));
        return run(
                dir,
                Map.of(WorkingTree.GIT_CEILING_DIRECTORIES, home.gitCeiling().toString()),
                command);
    }

    private static String run(Path dir, Map<String, String> env, List<String> command) {
        try {
            ProcessBuilder builder =
                    new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
            builder.environment().keySet().removeIf(name -> name.startsWith("GIT_"));
            builder.environment().putAll(env);
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            return output;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
