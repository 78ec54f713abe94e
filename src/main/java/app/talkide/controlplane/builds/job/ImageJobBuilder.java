package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.builds.BuildSpec;
import app.talkide.controlplane.provisioning.BuildPlacement;
import app.talkide.controlplane.provisioning.ManagedNames;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Objects;

/**
 * An image build with the maintained kaniko fork (daemonless: no Docker socket, no privileged container):
 * the Dockerfile and context from the working tree, mounted read-only, pushed to the destination with the
 * tenant's registry credential — the Secret the operator puts into the namespace
 * ({@code talkide.builds.image.registry-credential-secret}, type {@code kubernetes.io/dockerconfigjson}),
 * mounted as kaniko's {@code config.json}. Kaniko unpacks base images as root, so this pod meets the
 * namespace's {@code baseline} profile, not {@code restricted}: root with the runtime's default capabilities,
 * but RuntimeDefault seccomp and no privilege escalation.
 */
public final class ImageJobBuilder {

    static final String DOCKER_CONFIG = "/kaniko/.docker";
    static final String REGISTRY_CREDENTIAL = "registry-credential";

    public static Job build(Build build, BuildProperties properties, BuildPlacement placement) {
        BuildSpec spec = build.spec();
        BuildProperties.Image image = properties.image();
        String context = GradleJobBuilder.WORKSPACE + "/" + Objects.requireNonNull(spec.context());
        Container container = new ContainerBuilder()
                .withName(BuildPodTemplate.CONTAINER)
                .withImage(image.builderImage())
                .withArgs(
                        "--context=dir://" + context,
                        "--dockerfile=" + GradleJobBuilder.WORKSPACE + "/" + spec.dockerfile(),
                        "--destination=" + spec.destination())
                .addNewEnv()
                .withName("DOCKER_CONFIG")
                .withValue(DOCKER_CONFIG)
                .endEnv()
                .withResources(BuildPodTemplate.resources(image.resources()))
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false)
                .endSecurityContext()
                .addNewVolumeMount()
                .withName(ManagedNames.SESSIONS_VOLUME)
                .withMountPath(GradleJobBuilder.WORKSPACE)
                .withSubPath(GradleJobBuilder.WORKSPACE_SUB_PATH)
                .withReadOnly(true)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(REGISTRY_CREDENTIAL)
                .withMountPath(DOCKER_CONFIG)
                .withReadOnly(true)
                .endVolumeMount()
                .build();
        var podSecurity = new PodSecurityContextBuilder()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .build();
        List<Volume> volumes = List.of(
                GradleJobBuilder.claim(ManagedNames.SESSIONS_VOLUME),
                new VolumeBuilder()
                        .withName(REGISTRY_CREDENTIAL)
                        .withNewSecret()
                        .withSecretName(image.registryCredentialSecret())
                        .addNewItem()
                        .withKey(".dockerconfigjson")
                        .withPath("config.json")
                        .endItem()
                        .endSecret()
                        .build());
        return BuildPodTemplate.job(build, properties, placement, podSecurity, container, volumes);
    }

    private ImageJobBuilder() {}
}
