package app.talkide.controlplane.builds;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Names and labels of build Jobs; the label is how a new leader finds the Jobs of running builds. */
public final class BuildNames {

    public static final String BUILD_ID_LABEL = "talkide.app/build-id";
    public static final String COMPONENT_LABEL = "app.kubernetes.io/component";
    public static final String COMPONENT = "build";
    /** Set by the Job controller on the pods it creates, from Kubernetes 1.27 on (before: {@code job-name}). */
    public static final String JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
    /** Each tenant-environment's Gradle cache (GRADLE_USER_HOME). */
    public static final String GRADLE_CACHE_VOLUME = "gradle-cache";

    private BuildNames() {}

    /** {@code build-<uuid>}: 42 characters, a valid DNS-1123 label for any id. */
    public static String jobName(UUID buildId) {
        return "build-" + buildId;
    }

    public static Map<String, String> labels(TenantEnvironmentId in, UUID buildId) {
        Map<String, String> labels = new LinkedHashMap<>(ManagedNames.labelsOf(in));
        labels.put(COMPONENT_LABEL, COMPONENT);
        labels.put(BUILD_ID_LABEL, buildId.toString());
        return labels;
    }
}
