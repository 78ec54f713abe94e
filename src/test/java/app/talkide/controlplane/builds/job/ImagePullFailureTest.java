package app.talkide.controlplane.builds.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which waiting reasons of a build pod mean its image cannot be pulled, and which of them never recover. */
class ImagePullFailureTest {

    @Test
    void aPullTheKubeletRetriesIsAFailureWithGraceAMalformedNameOneWithout() {
        assertThat(ImagePullFailure.of(pod(List.of(waiting("build", "ImagePullBackOff")), List.of())))
                .hasValue(new ImagePullFailure("ImagePullBackOff", "registry.example.com/app:1", false));
        assertThat(ImagePullFailure.of(pod(List.of(waiting("build", "ErrImagePull")), List.of())))
                .hasValueSatisfying(failure -> assertThat(failure.permanent()).isFalse());
        assertThat(ImagePullFailure.of(pod(List.of(waiting("build", "InvalidImageName")), List.of())))
                .hasValueSatisfying(failure -> assertThat(failure.permanent()).isTrue());
        assertThat(ImagePullFailure.of(pod(List.of(waiting("build", "ErrImageNeverPull")), List.of())))
                .hasValueSatisfying(failure -> assertThat(failure.permanent()).isTrue());
    }

    @Test
    void anInitContainersImageCountsToo() {
        assertThat(ImagePullFailure.of(pod(
                        List.of(waiting("build", "PodInitializing")), List.of(waiting("init", "ImagePullBackOff")))))
                .hasValueSatisfying(failure -> assertThat(failure.reason()).isEqualTo("ImagePullBackOff"));
    }

    @Test
    void aPodThatWaitsForAnythingElseOrRunsIsNoFailure() {
        assertThat(ImagePullFailure.of(null)).isEmpty();
        assertThat(ImagePullFailure.of(new PodBuilder().build())).isEmpty();
        assertThat(ImagePullFailure.of(pod(List.of(waiting("build", "ContainerCreating")), List.of())))
                .isEmpty();
        assertThat(ImagePullFailure.of(pod(
                        List.of(new ContainerStatusBuilder()
                                .withName("build")
                                .withNewState()
                                .withNewRunning()
                                .endRunning()
                                .endState()
                                .build()),
                        List.of())))
                .isEmpty();
    }

    @Test
    void theBuildsReasonNamesTheImageAndTheKubeletsReason() {
        assertThat(new ImagePullFailure("ImagePullBackOff", "registry.example.com/app:1", false).buildFailure())
                .isEqualTo("the build's image registry.example.com/app:1 could not be pulled (ImagePullBackOff)");
    }

    private static ContainerStatus waiting(String name, String reason) {
        return new ContainerStatusBuilder()
                .withName(name)
                .withImage("registry.example.com/app:1")
                .withNewState()
                .withNewWaiting()
                .withReason(reason)
                .endWaiting()
                .endState()
                .build();
    }

    private static Pod pod(List<ContainerStatus> containers, List<ContainerStatus> initContainers) {
        return new PodBuilder()
                .withNewStatus()
                .withPhase("Pending")
                .withContainerStatuses(containers)
                .withInitContainerStatuses(initContainers)
                .endStatus()
                .build();
    }
}
