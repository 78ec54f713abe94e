package app.talkide.controlplane.builds;

import app.talkide.controlplane.provisioning.BuildPlacement;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Build Jobs (docs/builds.md). Off unless enabled, and only with the {@code kubernetes} worker runtime.
 *
 * @param enabled whether workers may start builds at all
 * @param maxRunning builds of one tenant-environment that run at once; more wait in order
 * @param maxQueued builds of one tenant-environment that may wait; beyond it a request is refused
 * @param dispatchInterval how often the leader looks for queued builds (those accepted by other replicas)
 * @param logPollInterval how often the leader reads a running build's pod log
 * @param maxLogLines lines of a build's log kept; later lines are dropped with a note
 * @param ttlAfterFinished how long Kubernetes keeps a finished Job and its pod ({@code ttlSecondsAfterFinished})
 * @param activeDeadline how long a build may run before Kubernetes stops it ({@code activeDeadlineSeconds})
 * @param imagePullGrace how long a build's pod may fail to pull its image ({@code ErrImagePull},
 *     {@code ImagePullBackOff}) before the build fails; a malformed image name fails it at once
 * @param placement where build pods run: the build node pool; a tenant-environment's desired state may set
 *     each field for itself
 * @param gradle Gradle builds
 * @param image image builds
 */
@Validated
@ConfigurationProperties("talkide.builds")
public record BuildProperties(
        @DefaultValue("false") boolean enabled,
        @Min(1) @DefaultValue("2") int maxRunning,
        @Min(1) @DefaultValue("20") int maxQueued,
        @NotNull @DefaultValue("2s") Duration dispatchInterval,
        @NotNull @DefaultValue("1s") Duration logPollInterval,
        @Min(1) @DefaultValue("20000") int maxLogLines,
        @NotNull @DefaultValue("1h") Duration ttlAfterFinished,
        @NotNull @DefaultValue("30m") Duration activeDeadline,
        @NotNull @DefaultValue("2m") Duration imagePullGrace,
        @Valid @DefaultValue Placement placement,
        @Valid @DefaultValue Gradle gradle,
        @Valid @DefaultValue Image image) {

    /**
     * @param nodeSelector node labels a build pod requires
     * @param requiredNodeLabels node affinity: each label must have one of the listed values
     * @param tolerations taints of the build node pool that build pods tolerate
     */
    public record Placement(
            @NotNull @DefaultValue Map<String, String> nodeSelector,
            @NotNull @DefaultValue Map<String, List<String>> requiredNodeLabels,
            @NotNull @DefaultValue List<Toleration> tolerations) {

        /** As the defaults a tenant-environment's own build placement is filled in from. */
        public BuildPlacement asDefaults() {
            return new BuildPlacement(
                    nodeSelector,
                    requiredNodeLabels,
                    tolerations.stream()
                            .map(t -> new TolerationBuilder()
                                    .withKey(t.key())
                                    .withOperator(t.operator())
                                    .withValue(t.value())
                                    .withEffect(t.effect())
                                    .build())
                            .toList());
        }
    }

    /**
     * @param key the taint's key
     * @param operator {@code Equal} or {@code Exists}
     * @param value the taint's value (with {@code Equal})
     * @param effect {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}; empty means all
     */
    public record Toleration(
            @NotBlank String key,
            @NotBlank @DefaultValue("Equal") String operator,
            @Nullable String value,
            @Nullable String effect) {}

    /**
     * @param cpuRequest CPU requested
     * @param memoryRequest memory requested
     * @param cpuLimit CPU limit
     * @param memoryLimit memory limit
     */
    public record Resources(
            @NotBlank @DefaultValue("1") String cpuRequest,
            @NotBlank @DefaultValue("2Gi") String memoryRequest,
            @NotBlank @DefaultValue("2") String cpuLimit,
            @NotBlank @DefaultValue("4Gi") String memoryLimit) {}

    /**
     * @param builderImage the Gradle image (it runs {@code gradle}; a project's wrapper runs as a task argument)
     * @param cacheSize the size of each tenant-environment's Gradle cache volume
     * @param cacheStorageClass its storage class (ReadWriteMany, like the session volume); unset: the cluster's default
     * @param resources requests and limits of a Gradle build
     */
    public record Gradle(
            @NotBlank @DefaultValue("gradle:8.14-jdk21") String builderImage,
            @NotBlank @DefaultValue("20Gi") String cacheSize,
            @Nullable String cacheStorageClass,
            @Valid @DefaultValue Resources resources) {}

    /**
     * @param builderImage the rootless image builder (the maintained kaniko fork); unset: image builds are off
     * @param registryPrefix where a tenant-environment may push, {@code {tenant}} and {@code {env}} replaced;
     *     must name both and end with {@code /}, e.g. {@code registry.example.com/{tenant}/{env}/}; unset:
     *     image builds are off
     * @param registryCredentialSecret the Secret (type {@code kubernetes.io/dockerconfigjson}) the operator
     *     puts into each tenant namespace with the tenant's push credential
     * @param resources requests and limits of an image build
     */
    public record Image(
            @DefaultValue("") String builderImage,
            @DefaultValue("") String registryPrefix,

            @NotBlank @DefaultValue("talkide-registry-credentials")
            String registryCredentialSecret,

            @Valid @DefaultValue Resources resources) {

        public Image {
            if (!registryPrefix.isBlank()
                    && (!registryPrefix.contains("{tenant}")
                            || !registryPrefix.contains("{env}")
                            || !registryPrefix.endsWith("/"))) {
                throw new IllegalArgumentException("talkide.builds.image.registry-prefix must name both {tenant} and"
                        + " {env} and end with '/' (e.g. registry.example.com/{tenant}/{env}/), so no"
                        + " tenant-environment can push over another's images");
            }
        }

        public boolean configured() {
            return !builderImage.isBlank() && !registryPrefix.isBlank();
        }

        /** Where {@code tenant}/{@code env} may push. */
        public String registryPrefix(String tenant, String env) {
            return registryPrefix.replace("{tenant}", tenant).replace("{env}", env);
        }
    }
}
