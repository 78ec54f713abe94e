package app.talkide.controlplane.local.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Node/TypeScript worker ({@code worker/}) as a child process: installed and built on first use
 * ({@code npm ci}, {@code npm run build}, with progress in the log), started with exactly the environment
 * a pod gets, and stopped like a pod (SIGTERM) or killed like a crashed one. Its port is read from its
 * start-up log line.
 */
public final class NodeWorkerProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NodeWorkerProcess.class);
    private static final Pattern LISTENING =
            Pattern.compile("\"message\":\"TalkIDE worker listening\".*\"port\":(\\d+)");
    private static final Pattern NODE_VERSION = Pattern.compile("v(\\d+)\\.");

    private final Process process;
    private final int port;

    private NodeWorkerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Empty when Node ≥ 20 and npm are on the PATH; otherwise what to install. */
    public static Optional<String> missingRuntime() {
        Optional<String> node = run(List.of("node", "--version"));
        if (node.isEmpty()) {
            return Optional.of("Node.js 20 or newer is not installed (apt-get install -y nodejs npm, or start with"
                    + " scripts/with-node.sh ./mvnw spring-boot:run)");
        }
        Matcher version = NODE_VERSION.matcher(node.get());
        if (!version.find() || Integer.parseInt(version.group(1)) < 20) {
            return Optional.of("Node.js " + node.get().trim() + " is too old: the worker needs 20 or newer (start with"
                    + " scripts/with-node.sh ./mvnw spring-boot:run to get one)");
        }
        if (run(List.of("npm", "--version")).isEmpty()) {
            return Optional.of("npm is not installed (apt-get install -y npm)");
        }
        return Optional.empty();
    }

    /** Installs the dependencies and builds the worker when that has not happened yet (or is out of date). */
    public static synchronized void prepare(Path workerDir) {
        Path lock = workerDir.resolve("package-lock.json");
        Path installed = workerDir.resolve("node_modules/.package-lock.json");
        Path built = workerDir.resolve("dist/src/main.js");
        // Other processes may prepare the same checkout at once (the test forks, a second local run):
        // one npm ci deleting node_modules under another's build breaks both, so they take turns.
        Path turns = Path.of(System.getProperty("java.io.tmpdir"))
                .resolve("talkide-worker-prepare-"
                        + Integer.toHexString(workerDir.toAbsolutePath().hashCode()) + ".lock");
        try (FileChannel channel = FileChannel.open(turns, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock()) {
            if (!Files.exists(installed)
                    || Files.getLastModifiedTime(installed).compareTo(Files.getLastModifiedTime(lock)) < 0) {
                log.info(
                        "Installing the Node worker's dependencies (npm ci in {}); the first time takes a minute",
                        workerDir);
                runLogged(workerDir, List.of("npm", "ci", "--no-audit", "--no-fund"));
            }
            if (!Files.exists(built) || newerSources(workerDir.resolve("src"), built)) {
                log.info("Building the Node worker (npm run build)");
                runLogged(workerDir, List.of("npm", "run", "build"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the Node worker in " + workerDir, e);
        }
    }

    /** Starts the worker and waits until it listens. */
    public static NodeWorkerProcess start(Path workerDir, Map<String, String> environment, Duration startTimeout) {
        ProcessBuilder builder = new ProcessBuilder("node", "dist/src/main.js")
                .directory(workerDir.toFile())
                .redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        // Only what a pod would have: nothing of the control plane's own environment (no API key) leaks in.
        env.keySet().removeIf(name -> !List.of("PATH", "HOME", "LANG", "TMPDIR").contains(name));
        env.putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Node worker", e);
        }
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("node-worker-log").start(() -> pump(process, port));
        try {
            return new NodeWorkerProcess(process, port.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while the Node worker started", e);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("the Node worker did not start (see its log above)", e);
        }
    }

    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** SIGTERM, as Kubernetes stops a pod; waits for it to exit. */
    public void stop() {
        process.destroy();
        awaitExit();
    }

    /** SIGKILL, as a crash: nothing more is written. */
    public void kill() {
        process.destroyForcibly();
        awaitExit();
    }

    @Override
    public void close() {
        stop();
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Copies the worker's JSON log lines into this log and notes the port it listens on. */
    private static void pump(Process process, CompletableFuture<Integer> port) {
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                Matcher listening = LISTENING.matcher(line);
                if (!port.isDone() && listening.find()) {
                    port.complete(Integer.parseInt(listening.group(1)));
                }
                log.info("[node worker] {}", line);
            }
        } catch (IOException ended) {
            // The process went away; its exit is the news.
        }
        port.completeExceptionally(new IllegalStateException("the Node worker exited"));
    }

    private static boolean newerSources(Path sources, Path built) throws IOException {
        long builtAt = Files.getLastModifiedTime(built).toMillis();
        try (var files = Files.walk(sources)) {
            return files.anyMatch(file -> {
                try {
                    return Files.getLastModifiedTime(file).toMillis() > builtAt;
                } catch (IOException e) {
                    return true;
                }
            });
        }
    }

    private static void runLogged(Path dir, List<String> command) throws IOException {
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                log.info("[{}] {}", String.join(" ", command), line);
            }
        }
        try {
            if (!process.waitFor(15, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed in " + dir);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " was interrupted", e);
        }
    }

    private static Optional<String> run(List<String> command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0
                    ? Optional.of(output)
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
