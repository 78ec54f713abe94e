package app.talkide.controlplane.build.job;

import app.talkide.controlplane.build.Build;
import app.talkide.controlplane.build.BuildLog;
import app.talkide.controlplane.build.BuildNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Copies a build pod's log into {@link BuildLog}. It reads the whole log each time and stores the lines
 * past what is stored, so reading again (a poll, a new leader) never duplicates a line. Plain reads of
 * {@code pods/log}: fabric8's follow and log helpers first watch the pod, which would need more rights
 * than {@code pods} list and {@code pods/log} get.
 */
final class BuildPodLogs {

    /** The most of a log read at once; a longer log keeps its first part (the store caps lines anyway). */
    static final long LIMIT_BYTES = 8L * 1024 * 1024;

    private final KubernetesClient client;
    private final BuildLog log;

    BuildPodLogs(KubernetesClient client, BuildLog log) {
        this.client = client;
        this.log = log;
    }

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
        if (pod == null
                || pod.getStatus() == null
                || "Pending".equals(pod.getStatus().getPhase())) {
            return;
        }
        String text = read(build, pod.getMetadata().getName());
        if (text == null || text.isEmpty()) {
            return;
        }
        List<String> lines = Arrays.asList(text.split("\r?\n", -1));
        // The last piece is a line still being written (or "" after a final line break): only once it ended.
        int complete = finished && !text.endsWith("\n") ? lines.size() : lines.size() - 1;
        int stored = log.lineCount(build.id());
        if (complete > stored) {
            log.append(build.id(), lines.subList(stored, complete));
        }
    }

    private @Nullable String read(Build build, String podName) {
        String url = client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/"
                + build.tenantEnvironment().namespace() + "/pods/" + podName + "/log?container="
                + BuildPodTemplate.CONTAINER + "&limitBytes=" + LIMIT_BYTES;
        return client.raw(url);
    }
}
