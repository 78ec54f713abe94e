package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildNames;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.provisioning.BuildPlacement;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What every build Job shares: its name and labels, one attempt ({@code backoffLimit: 0}: a failed build
 * is reported, not silently retried), {@code activeDeadlineSeconds}, {@code ttlSecondsAfterFinished}, no
 * ServiceAccount token (build code is the tenant's code and gets no cluster credentials), no service links,
 * and the placement on the build node pool (the tenant-environment's, filled in from the build defaults).
 */
final class BuildPodTemplate {

    static final String CONTAINER = "build";

    static Job job(
            Build build,
            BuildProperties properties,
            BuildPlacement placement,
            PodSecurityContext podSecurity,
            Container container,
            List<Volume> volumes) {
        var labels = BuildNames.labels(build.tenantEnvironment(), build.id());
        return new JobBuilder()
                .withNewMetadata()
                .withName(BuildNames.jobName(build.id()))
                .withNamespace(build.tenantEnvironment().namespace())
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withBackoffLimit(0)
                .withActiveDeadlineSeconds(properties.activeDeadline().toSeconds())
                .withTtlSecondsAfterFinished(
                        Math.toIntExact(properties.ttlAfterFinished().toSeconds()))
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withSecurityContext(podSecurity)
                .withNodeSelector(placement.nodeSelectorOrNone())
                .withTolerations(placement.tolerationsOrNone())
                .withAffinity(affinity(placement))
                .withContainers(container)
                .withVolumes(volumes)
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    static ResourceRequirements resources(BuildProperties.Resources resources) {
        return new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(resources.cpuRequest()))
                .addToRequests("memory", new Quantity(resources.memoryRequest()))
                .addToLimits("cpu", new Quantity(resources.cpuLimit()))
                .addToLimits("memory", new Quantity(resources.memoryLimit()))
                .build();
    }

    private static @Nullable Affinity affinity(BuildPlacement placement) {
        if (placement.requiredNodeLabelsOrNone().isEmpty()) {
            return null;
        }
        var requirements = placement.requiredNodeLabelsOrNone().entrySet().stream()
                .map(e -> new NodeSelectorRequirementBuilder()
                        .withKey(e.getKey())
                        .withOperator("In")
                        .withValues(e.getValue())
                        .build())
                .toList();
        return new AffinityBuilder()
                .withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm()
                .withMatchExpressions(requirements)
                .endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity()
                .build();
    }

    private BuildPodTemplate() {}
}
