package app.talkide.controlplane.builds.job;

import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A build pod whose image the kubelet cannot pull. The Job controller sees nothing wrong with it (the pod is
 * pending, not failed), so without this the build would wait for its {@code active-deadline}.
 *
 * @param reason the kubelet's reason, e.g. {@code ImagePullBackOff}
 * @param image the image it could not pull
 * @param permanent whether it can never succeed (a malformed name), so no grace is given
 */
record ImagePullFailure(String reason, String image, boolean permanent) {

    /** Kept retrying by the kubelet: a registry that is briefly down recovers from these. */
    private static final Set<String> RETRIED = Set.of("ErrImagePull", "ImagePullBackOff");
    /** Never pulled, however long one waits. */
    private static final Set<String> PERMANENT = Set.of("InvalidImageName", "ErrImageNeverPull");

    static Optional<ImagePullFailure> of(@Nullable Pod pod) {
        if (pod == null || pod.getStatus() == null) {
            return Optional.empty();
        }
        return Stream.concat(
                        statuses(pod.getStatus().getInitContainerStatuses()),
                        statuses(pod.getStatus().getContainerStatuses()))
                .map(ImagePullFailure::of)
                .flatMap(Optional::stream)
                .findFirst();
    }

    private static Optional<ImagePullFailure> of(ContainerStatus container) {
        ContainerStateWaiting waiting =
                container.getState() == null ? null : container.getState().getWaiting();
        String reason = waiting == null ? null : waiting.getReason();
        if (reason == null || !(RETRIED.contains(reason) || PERMANENT.contains(reason))) {
            return Optional.empty();
        }
        return Optional.of(new ImagePullFailure(reason, container.getImage(), PERMANENT.contains(reason)));
    }

    private static Stream<ContainerStatus> statuses(@Nullable List<ContainerStatus> statuses) {
        return statuses == null ? Stream.empty() : statuses.stream();
    }

    /** What the build's state says: the image and the kubelet's reason, never a registry credential. */
    String buildFailure() {
        return "the build's image " + image + " could not be pulled (" + reason + ")";
    }
}
