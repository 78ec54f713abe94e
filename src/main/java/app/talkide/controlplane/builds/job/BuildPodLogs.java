package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildLog;
import app.talkide.controlplane.builds.BuildNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a build pod's log into {@link BuildLog}, reading only what is new: lines come with the
 * kubelet's timestamps, and each read after the first asks for those since the last line stored
 * ({@code sinceTime}, whole seconds), skipping what it already has. The first read of a build on this
 * replica (a new leader) reads the log whole and skips the lines stored, so nothing is duplicated. Once
 * the store's cap is reached, the log is not read any more. Plain reads of {@code pods/log}: fabric8's
 * follow and log helpers first watch the pod, which would need more rights than {@code pods} list and
 * {@code pods/log} get. An image build's push credential is taken out of every line before it is stored
 * ({@link CredentialRedaction}).
 */
final class BuildPodLogs {

    /** The most of a log read at once; a longer log keeps its first part (the store caps lines anyway). */
    static final long LIMIT_BYTES = 8L * 1024 * 1024;

    private static final Logger logger = LoggerFactory.getLogger(BuildPodLogs.class);

    private final KubernetesClient client;
    private final BuildLog log;
    private final int maxLines;
    private final CredentialRedaction redaction;
    /** Per running build: the timestamp of the last line stored, and how many stored lines carry it. */
    private final Map<UUID, Cursor> cursors = new ConcurrentHashMap<>();

    BuildPodLogs(KubernetesClient client, BuildLog log, int maxLines, CredentialRedaction redaction) {
        this.client = client;
        this.log = log;
        this.maxLines = maxLines;
        this.redaction = redaction;
    }

    private record Cursor(String timestamp, int linesAtTimestamp) {}

    /**
     * The Job's newest pod, if the Job controller created one yet: found by the build-id label of the pod
     * template, not the controller's {@code batch.kubernetes.io/job-name}, which Kubernetes sets only from 1.27 on
     * (older clusters label pods {@code job-name}, and the real 1.20 cluster showed builds without logs).
     */
    Optional<Pod> pod(Build build) {
        return client
                .pods()
                .inNamespace(build.tenantEnvironment().namespace())
                .withLabel(BuildNames.BUILD_ID_LABEL, build.id().toString())
                .list()
                .getItems()
                .stream()
                .max(Comparator.comparing(
                        p -> p.getMetadata().getCreationTimestamp(), Comparator.nullsFirst(String::compareTo)));
    }

    /**
     * Stores the new complete lines of the pod's log; with {@code finished} also a last line without a line
     * break. Nothing to read yet (no pod, container not started) is not an error.
     */
    void copy(Build build, @Nullable Pod pod, boolean finished) {
        try {
            copyNew(build, pod, finished);
        } catch (CredentialRedaction.Unavailable e) {
            // Never stored unredacted: the same lines are read again at the next poll.
            logger.warn("The log of build {} is not stored for now: {}", build.id(), e.getMessage());
        } finally {
            if (finished) {
                cursors.remove(build.id());
                redaction.forget(build.id());
            }
        }
    }

    private void copyNew(Build build, @Nullable Pod pod, boolean finished) {
        if (pod == null
                || pod.getStatus() == null
                || "Pending".equals(pod.getStatus().getPhase())) {
            return;
        }
        int stored = log.lineCount(build.id());
        if (stored > maxLines) {
            return; // capped: the store takes no more lines, so reading more is work for nothing
        }
        Cursor cursor = cursors.get(build.id());
        String text = read(build, pod.getMetadata().getName(), cursor);
        if (text == null || text.isEmpty()) {
            return;
        }
        List<String> lines = Arrays.asList(text.split("\r?\n", -1));
        // The last piece is a line still being written (or "" after a final line break): only once it ended.
        int complete = finished && !text.endsWith("\n") ? lines.size() : lines.size() - 1;
        List<String> fresh = new ArrayList<>();
        String lastTimestamp = cursor == null ? "" : cursor.timestamp();
        int atLast = cursor == null ? 0 : cursor.linesAtTimestamp();
        int skipWhole = cursor == null ? stored : 0;
        int alreadyAtLast = atLast;
        for (int i = 0; i < complete; i++) {
            String line = lines.get(i);
            int space = line.indexOf(' ');
            String timestamp = space < 0 ? "" : line.substring(0, space);
            String content = space < 0 ? line : line.substring(space + 1);
            if (cursor != null) {
                int order = timestamp.compareTo(cursor.timestamp());
                if (order < 0 || (order == 0 && alreadyAtLast-- > 0)) {
                    continue; // read again because sinceTime has whole seconds only
                }
            }
            atLast = timestamp.equals(lastTimestamp) ? atLast + 1 : 1;
            lastTimestamp = timestamp;
            if (skipWhole > 0) {
                skipWhole--; // stored by an earlier leader
                continue;
            }
            fresh.add(content);
        }
        // Redacted before the cursor moves: if the credential cannot be read, these lines are read again.
        List<String> safe = fresh.isEmpty() ? fresh : redaction.redact(build, fresh);
        if (!lastTimestamp.isEmpty()) {
            cursors.put(build.id(), new Cursor(lastTimestamp, atLast));
        }
        if (!safe.isEmpty()) {
            log.append(build.id(), safe);
        }
    }

    private @Nullable String read(Build build, String podName, @Nullable Cursor cursor) {
        String url = client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/"
                + build.tenantEnvironment().namespace() + "/pods/" + podName + "/log?container="
                + BuildPodTemplate.CONTAINER + "&timestamps=true&limitBytes=" + LIMIT_BYTES;
        if (cursor != null) {
            // RFC 3339 with nanoseconds; the API takes whole seconds, so the second of the last line is read again.
            url += "&sinceTime=" + wholeSecond(cursor.timestamp());
        }
        return client.raw(url);
    }

    static String wholeSecond(String timestamp) {
        int dot = timestamp.indexOf('.');
        return dot < 0 ? timestamp : timestamp.substring(0, dot) + "Z";
    }
}
