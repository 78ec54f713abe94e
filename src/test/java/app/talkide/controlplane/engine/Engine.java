package app.talkide.controlplane.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;

/**
 * The real agent engine, from the pinned {@code src/test/engine/package.json} and its lockfile: the Claude
 * Code CLI (through its package's own launcher, which starts the native binary for this platform) and a
 * small Agent SDK script. {@link #install()} runs {@code npm ci} when {@code node_modules} is missing;
 * without {@code node} and {@code npm} the tests fail, saying what to install.
 */
final class Engine {

    static final Path DIRECTORY = Path.of("src/test/engine").toAbsolutePath();
    private static final long TIMEOUT_SECONDS = 180;

    /** What a finished engine process wrote. */
    record Run(int exitCode, String stdout, String stderr) {

        /** The JSON lines of stdout (stream-json), skipping anything else the engine printed. */
        List<String> jsonLines() {
            return stdout.lines().filter(line -> line.startsWith("{")).toList();
        }
    }

    private Engine() {}

    static synchronized void install() throws IOException, InterruptedException {
        for (String tool : List.of("node", "npm")) {
            if (!onPath(tool)) {
                Assertions.fail(
                        tool + " is missing: the engine tests run the real agent engine from npm. Install"
                                + " Node.js and npm (apt-get install -y nodejs npm; scripts/test.sh does it when run as root).");
            }
        }
        if (Files.isDirectory(DIRECTORY.resolve("node_modules/@anthropic-ai/claude-agent-sdk"))
                && Files.isDirectory(DIRECTORY.resolve("node_modules/@anthropic-ai/claude-code"))) {
            return;
        }
        // --ignore-scripts: the CLI's postinstall only copies the native binary over a stub; the
        // package's launcher finds the binary without it.
        Run npm = run(
                List.of("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"),
                DIRECTORY,
                Map.of("PATH", System.getenv("PATH"), "HOME", System.getProperty("java.io.tmpdir")),
                600);
        assertThat(npm.exitCode())
                .as("npm ci in %s failed:\n%s", DIRECTORY, npm.stderr())
                .isZero();
    }

    /** {@code claude <arguments>} in {@code workingDirectory}, with exactly {@code environment} (plus PATH). */
    static Run cli(List<String> arguments, Path workingDirectory, Map<String, String> environment)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                "node",
                DIRECTORY
                        .resolve("node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs")
                        .toString()));
        command.addAll(arguments);
        return run(command, workingDirectory, environment, TIMEOUT_SECONDS);
    }

    /** The Agent SDK's {@code query()} on {@code prompt}, each message it yields a JSON line on stdout. */
    static Run sdkQuery(String prompt, Path workingDirectory, Map<String, String> environment)
            throws IOException, InterruptedException {
        return run(
                List.of("node", DIRECTORY.resolve("sdk-query.mjs").toString(), prompt),
                workingDirectory,
                environment,
                TIMEOUT_SECONDS);
    }

    private static Run run(List<String> command, Path workingDirectory, Map<String, String> environment, long timeout)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("engine", ".out");
        Path err = Files.createTempFile("engine", ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workingDirectory.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        // Only what the test gives it: no key, proxy or setting of the machine leaks into the engine.
        builder.environment().clear();
        builder.environment().put("PATH", System.getenv("PATH"));
        builder.environment().putAll(environment);
        Process process = builder.start();
        try {
            if (!process.waitFor(timeout, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                Assertions.fail(command.getFirst() + " did not finish within " + timeout + " s; stderr:\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Run(
                    process.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(directory, tool))) {
                return true;
            }
        }
        return false;
    }
}
