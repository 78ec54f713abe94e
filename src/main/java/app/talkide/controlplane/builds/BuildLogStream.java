package app.talkide.controlplane.builds;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * A build's log as Server-Sent Events, one {@code line} event per line (id = line number, so
 * {@code Last-Event-ID} resumes), live while it runs and replayed once it ended, then one {@code end} event
 * with the final state. Any replica serves it: the leader stores the lines, this reads them (every
 * {@code log-poll-interval}), so a leader change does not cut the stream. Served to the worker
 * ({@link BuildLogController}) and to the conversation's owner ({@link ConversationBuildController}).
 */
@Component
class BuildLogStream {

    private static final Duration HEARTBEAT = Duration.ofSeconds(15);
    /** How often a reader's right to the log is checked again while it streams. */
    static final Duration ACCESS_RECHECK = Duration.ofSeconds(5);

    private static final int PAGE = 500;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Builds builds;
    private final BuildLog log;
    private final BuildProperties properties;

    BuildLogStream(Builds builds, BuildLog log, BuildProperties properties) {
        this.builds = builds;
        this.log = log;
        this.properties = properties;
    }

    /**
     * Streams build {@code id} (its access already checked) until it ended and its log was sent, or until
     * {@code until} (the caller's credential expires): then the stream just stops, without an {@code end}
     * event, and the client reconnects with a fresh credential and {@code Last-Event-ID}. {@code
     * stillAllowed} is asked again every {@link #ACCESS_RECHECK}: once it says no (a member removed from the
     * tenant-environment, say), the stream stops the same way.
     */
    void stream(
            UUID id,
            @Nullable String lastEventId,
            @Nullable Instant until,
            BooleanSupplier stillAllowed,
            HttpServletResponse response)
            throws IOException, InterruptedException {
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Accel-Buffering", "no");
        OutputStream out = response.getOutputStream();
        int after = parse(lastEventId);
        long lastWrite = System.nanoTime();
        long lastCheck = System.nanoTime();
        while (true) {
            if (System.nanoTime() - lastCheck > ACCESS_RECHECK.toNanos()) {
                if (!stillAllowed.getAsBoolean()) {
                    return;
                }
                lastCheck = System.nanoTime();
            }
            // State first, lines second: lines stored before a build ended are all read after it is seen ended.
            Build build = builds.find(id).orElseThrow(BuildProblems.BuildNotFound::new);
            List<BuildLog.Line> lines = log.after(id, after, PAGE);
            if (!lines.isEmpty()) {
                out.write(events(lines));
                out.flush();
                after = lines.getLast().number();
                lastWrite = System.nanoTime();
                continue;
            }
            if (build.state().finished()) {
                out.write(end(builds.view(build)));
                out.flush();
                return;
            }
            if (until != null && !Instant.now().isBefore(until)) {
                // No request outlives the token that authorized it: a revoked or expired token reads no more.
                return;
            }
            if (System.nanoTime() - lastWrite > HEARTBEAT.toNanos()) {
                // Also how a closed client is noticed: the write fails and the request ends.
                out.write(":\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                lastWrite = System.nanoTime();
            }
            Thread.sleep(properties.logPollInterval());
        }
    }

    private static byte[] events(List<BuildLog.Line> lines) {
        StringBuilder text = new StringBuilder();
        for (BuildLog.Line line : lines) {
            // A stored line has no line breaks (the follower splits on them), so one data field holds it.
            text.append("id: ").append(line.number()).append("\nevent: line\ndata: ");
            text.append(line.content().replace("\r", "")).append("\n\n");
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] end(BuildView view) {
        Map<String, @Nullable Object> data = new LinkedHashMap<>();
        data.put("state", view.state());
        data.put("reason", view.reason());
        data.put("durationMs", view.durationMs());
        return ("event: end\ndata: " + JSON.writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private static int parse(@Nullable String lastEventId) {
        if (lastEventId == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(lastEventId.trim()));
        } catch (NumberFormatException notOurs) {
            return 0;
        }
    }
}
