package app.talkide.controlplane.provisioning.leader;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Leader election among control-plane replicas.
 *
 * @param leaseNamespace namespace of the Lease; blank means the pod's own ({@code TALKIDE_POD_NAMESPACE}),
 *     else the client's configured namespace (the Helm chart's leader-election Role is in the release
 *     namespace)
 * @param leaseName name of the Lease all replicas compete for
 * @param identity this replica's name in the Lease; blank means {@code TALKIDE_POD_NAME}, else the host
 *     name plus a random suffix (two processes on one host must not share an identity)
 * @param leaseDuration how long a leader's claim lasts without renewal; another replica takes over after
 *     it when the leader dies without releasing
 * @param renewDeadline how long the leader keeps trying to renew before it gives up leading (below
 *     {@code lease-duration}, so it stops before anyone else may start)
 * @param retryPeriod how often candidates try to acquire and the leader renews
 */
@Validated
@ConfigurationProperties("talkide.provisioning.leader")
public record LeaderElectionProperties(
        @Nullable String leaseNamespace,

        @NotBlank @DefaultValue("talkide-control-plane-leader")
        String leaseName,

        @Nullable String identity,
        @NotNull @DefaultValue("15s") Duration leaseDuration,
        @NotNull @DefaultValue("10s") Duration renewDeadline,
        @NotNull @DefaultValue("2s") Duration retryPeriod) {}
