package app.talkide.controlplane.local.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded worker's working tree, made on its first start: a small Node.js project (plain JavaScript,
 * tested with Node's built-in runner, no dependencies) committed in a git repository of its own, so Mara's
 * tools have real work to read, change, test and commit, and her git commands answer for this tree, never
 * for a repository the data directory sits in. A tree that exists is left exactly as it is.
 */
final class WorkingTree {

    static final String GIT_CEILING_DIRECTORIES = "GIT_CEILING_DIRECTORIES";
    static final List<String> SAMPLE_FILES =
            List.of("README.md", "package.json", "src/slug.js", "src/cli.js", "test/slug.test.js");

    private static final Logger log = LoggerFactory.getLogger(WorkingTree.class);

    private WorkingTree() {}

    /** Makes the working tree unless it exists; true if it was made now. */
    static boolean ensure(WorkerHome home) {
        return ensure(home, "git");
    }

    /** With {@code git} the git command, so a test can do without one. */
    static boolean ensure(WorkerHome home, String git) {
        Path tree = home.workingTree();
        if (Files.exists(tree)) {
            return false;
        }
        Path staging = null;
        try {
            Files.createDirectories(home.dir());
            // Built beside it and moved into place, so a start that dies half-way leaves no half-made tree
            // for the next one to keep.
            staging = Files.createTempDirectory(home.dir(), "workspace-");
            for (String file : SAMPLE_FILES) {
                copySample(file, staging.resolve(file));
            }
            Optional<String> notARepository = commitSample(git, staging, home.gitCeiling());
            Files.move(staging, tree, StandardCopyOption.ATOMIC_MOVE);
            notARepository.ifPresentOrElse(
                    why -> log.warn(
                            "Working tree {}: a sample project, but not a git repository: {}. Mara's git commands"
                                    + " fail there; everything else works. To get one, install git, stop, delete"
                                    + " the directory and start again.",
                            tree,
                            why),
                    () -> log.info(
                            "Working tree {}: a sample project (Node.js, `npm test`) committed in a git repository"
                                    + " of its own",
                            tree));
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the working tree " + tree, e);
        } finally {
            if (staging != null && Files.exists(staging)) {
                deleteRecursively(staging);
            }
        }
    }

    private static void copySample(String name, Path target) throws IOException {
        try (InputStream sample = WorkingTree.class.getResourceAsStream("sample-project/" + name)) {
            if (sample == null) {
                throw new IOException("the sample project's " + name + " is missing from the application");
            }
            Files.createDirectories(target.getParent());
            Files.copy(sample, target);
        }
    }

    /** Empty when the sample is committed in a new repository; otherwise why not (and there is no .git). */
    private static Optional<String> commitSample(String git, Path dir, Path gitCeiling) {
        List<List<String>> commands = List.of(
                List.of("-c", "init.defaultBranch=main", "init", "-q"),
                // Mara commits as herself, also on a machine where git knows no user yet.
                List.of("config", "user.name", "Mara"),
                List.of("config", "user.email", "mara@talkide.localhost"),
                List.of("add", "-A"),
                List.of(
                        "-c",
                        "user.name=TalkIDE",
                        "-c",
                        "user.email=talkide@talkide.localhost",
                        "-c",
                        "commit.gpgsign=false",
                        "commit",
                        "-q",
                        "--no-verify",
                        "-m",
                        "Sample project"));
        for (List<String> command : commands) {
            Optional<String> failure = run(git, dir, gitCeiling, command);
            if (failure.isPresent()) {
                deleteRecursively(dir.resolve(".git"));
                return failure;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> run(String git, Path dir, Path gitCeiling, List<String> arguments) {
        List<String> command = new ArrayList<>(List.of(git));
        command.addAll(arguments);
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        // A GIT_DIR or GIT_WORK_TREE from whatever started the control plane must not redirect these commands.
        env.keySet().removeIf(name -> name.startsWith("GIT_"));
        env.put(GIT_CEILING_DIRECTORIES, gitCeiling.toString());
        try {
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.of(String.join(" ", command) + " did not finish");
            }
            return process.exitValue() == 0
                    ? Optional.empty()
                    : Optional.of(String.join(" ", command) + " failed: " + output);
        } catch (IOException notInstalled) {
            return Optional.of("git is not installed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(String.join(" ", command) + " was interrupted");
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
