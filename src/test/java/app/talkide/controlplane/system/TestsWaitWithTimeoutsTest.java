package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A failing test must fail, not hang the build: every latch, barrier, semaphore, queue, thread or future a
 * test waits on is waited for with a timeout ({@code await(10, SECONDS)}, {@code get(30, SECONDS)},
 * Awaitility's {@code atMost}). Benchmarks (package {@code bench}, not run by Surefire) may wait as long as
 * they like.
 */
class TestsWaitWithTimeoutsTest {

    static final Path TESTS = Path.of("src", "test", "java");

    /** Waits without a limit: no-argument await/join/acquire/take, and get() on something named a future. */
    static final List<Pattern> UNBOUNDED = List.of(
            Pattern.compile("\\.await\\(\\)(?!\\s*\\.)"),
            Pattern.compile("\\.join\\(\\)"),
            Pattern.compile("\\.acquire\\(\\)"),
            Pattern.compile("\\.take\\(\\)"),
            Pattern.compile("(?i)\\w*future\\w*(\\(\\))?\\.get\\(\\)"),
            Pattern.compile("\\.invokeAll\\([^,()]*\\)"));

    @Test
    void noTestWaitsWithoutATimeout() throws IOException {
        List<String> unbounded = new ArrayList<>();
        try (Stream<Path> files = Files.walk(TESTS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.toString().contains("/bench/"))
                    .filter(f -> !f.endsWith("TestsWaitWithTimeoutsTest.java"))
                    .sorted()
                    .toList()) {
                // The whole text, not lines: a chain such as Awaitility.await()⏎.atMost(…) spans two.
                String text = Files.readString(file);
                for (Pattern pattern : UNBOUNDED) {
                    var matcher = pattern.matcher(text);
                    while (matcher.find()) {
                        long line = text.substring(0, matcher.start()).lines().count();
                        unbounded.add(TESTS.relativize(file) + ":" + line + ": " + matcher.group());
                    }
                }
            }
        }
        assertThat(unbounded).as("waits without a timeout").isEmpty();
    }

    @Test
    void theCheckCatchesWaitsThatCouldHangAndLetsBoundedOnesThrough() {
        for (String unbounded : List.of(
                "latch.await();",
                "barrier.await();",
                "thread.join();",
                "permits.acquire();",
                "queue.take();",
                "Object answer = future.get();",
                "answers.getFirst().future().get();",
                "pool.invokeAll(tasks);")) {
            assertThat(UNBOUNDED.stream().anyMatch(p -> p.matcher(unbounded).find()))
                    .as(unbounded)
                    .isTrue();
        }
        for (String bounded : List.of(
                "latch.await(10, TimeUnit.SECONDS);",
                "Awaitility.await()\n        .atMost(Duration.ofSeconds(5))",
                "await().atMost(Duration.ofSeconds(5)).until(done::get);",
                "thread.join(Duration.ofSeconds(5));",
                "future.get(30, TimeUnit.SECONDS);",
                "queue.poll(1, TimeUnit.SECONDS);",
                "reference.get();",
                "String.join(\",\", parts);")) {
            assertThat(UNBOUNDED.stream().anyMatch(p -> p.matcher(bounded).find()))
                    .as(bounded)
                    .isFalse();
        }
    }
}
