package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The restricted Pod Security profile as the worker's user, for every pod that runs agent-written code: the
 * worker and its Gradle builds. One place, so the two cannot drift apart: a build writes the worker's files as
 * the worker's user.
 */
public final class RestrictedSecurityContexts {

    /** The worker image's non-root user; {@code fsGroup} makes the NFS session volume writable for it. */
    public static final long WORKER_UID = 10001L;

    /** Pod level: the worker's user and group, RuntimeDefault seccomp. */
    public static PodSecurityContext workerPod() {
        return workerPod(null);
    }

    /**
     * Pod level with a Localhost seccomp profile (allowed under the restricted level) when one is given: the
     * worker's Bash sandbox needs user namespaces, which RuntimeDefault refuses.
     */
    public static PodSecurityContext workerPod(@Nullable String localhostProfile) {
        if (localhostProfile != null && !localhostProfile.isBlank()) {
            return new PodSecurityContextBuilder(workerPod(null))
                    .withNewSeccompProfile()
                    .withType("Localhost")
                    .withLocalhostProfile(localhostProfile)
                    .endSeccompProfile()
                    .build();
        }
        return new PodSecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withRunAsUser(WORKER_UID)
                .withRunAsGroup(WORKER_UID)
                .withFsGroup(WORKER_UID)
                .withFsGroupChangePolicy("OnRootMismatch")
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .build();
    }

    /** Container level: non-root, read-only root filesystem, no privilege escalation, no capabilities. */
    public static SecurityContext container() {
        return new SecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withReadOnlyRootFilesystem(true)
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .build();
    }

    private RestrictedSecurityContexts() {}
}
