package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildNames;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.provisioning.BuildPlacement;
import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.RestrictedSecurityContexts;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * A Gradle build: {@code gradle --no-daemon <tasks> <arguments>} in the project's working tree, which
 * it mounts from the shared session volume (the worker's {@code CLAUDE_CONFIG_DIR/workspace}), with the
 * tenant-environment's Gradle cache as {@code GRADLE_USER_HOME}. Runs under the restricted Pod Security
 * profile: the worker's non-root user (so files it writes stay the worker's), read-only root filesystem,
 * no privilege escalation, no capabilities, RuntimeDefault seccomp.
 */
public final class GradleJobBuilder {

    static final String WORKSPACE = "/workspace";
    static final String GRADLE_HOME = "/gradle-cache";
    /** Where the worker keeps the working tree inside the session volume (its default TALKIDE_WORKSPACE_DIR). */
    static final String WORKSPACE_SUB_PATH = "workspace";

    public static Job build(Build build, BuildProperties properties, BuildPlacement placement) {
        List<String> args = new ArrayList<>();
        args.add("--no-daemon");
        args.addAll(build.spec().tasks());
        args.addAll(build.spec().arguments());
        Container container = new ContainerBuilder()
                .withName(BuildPodTemplate.CONTAINER)
                .withImage(properties.gradle().builderImage())
                .withCommand("gradle")
                .withArgs(args)
                .withWorkingDir(WORKSPACE)
                .addNewEnv()
                .withName("GRADLE_USER_HOME")
                .withValue(GRADLE_HOME)
                .endEnv()
                .addNewEnv()
                .withName("HOME")
                .withValue("/tmp")
                .endEnv()
                .withResources(BuildPodTemplate.resources(properties.gradle().resources()))
                .withSecurityContext(RestrictedSecurityContexts.container())
                .addNewVolumeMount()
                .withName(ManagedNames.SESSIONS_VOLUME)
                .withMountPath(WORKSPACE)
                .withSubPath(WORKSPACE_SUB_PATH)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(BuildNames.GRADLE_CACHE_VOLUME)
                .withMountPath(GRADLE_HOME)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName("tmp")
                .withMountPath("/tmp")
                .endVolumeMount()
                .build();
        List<Volume> volumes = List.of(
                claim(ManagedNames.SESSIONS_VOLUME),
                claim(BuildNames.GRADLE_CACHE_VOLUME),
                new VolumeBuilder()
                        .withName("tmp")
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .build());
        // As the worker's user: the working tree is the worker's, and so are the build's outputs in it.
        return BuildPodTemplate.job(
                build, properties, placement, RestrictedSecurityContexts.workerPod(), container, volumes);
    }

    static Volume claim(String name) {
        return new VolumeBuilder()
                .withName(name)
                .withNewPersistentVolumeClaim()
                .withClaimName(name)
                .endPersistentVolumeClaim()
                .build();
    }

    private GradleJobBuilder() {}
}
