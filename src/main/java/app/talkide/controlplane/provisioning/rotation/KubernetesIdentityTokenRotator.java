package app.talkide.controlplane.provisioning.rotation;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.identity.IdentityTokenRecord;
import app.talkide.controlplane.token.identity.IdentityTokenRotator;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.token.identity.IssuedIdentityToken;
import app.talkide.controlplane.token.identity.VerifiedIdentity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Rotates a worker's identity token in the cluster without leaving a pod without a working one: issue,
 * swap it into the Secret, roll, retire the old after the grace; {@link #finish} completes one a restart cut
 * short. Not transactional on purpose. Why and in which order: docs/provisioning.md, "Identity-token rotation".
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
public class KubernetesIdentityTokenRotator implements IdentityTokenRotator {

    private static final Logger log = LoggerFactory.getLogger(KubernetesIdentityTokenRotator.class);

    private final IdentityTokens identityTokens;
    private final WorkerTokenCluster cluster;
    private final Clock clock;
    private final MeterRegistry meters;

    KubernetesIdentityTokenRotator(
            IdentityTokens identityTokens, KubernetesClient client, Clock clock, MeterRegistry meters) {
        this.identityTokens = identityTokens;
        this.cluster = new WorkerTokenCluster(client);
        this.clock = clock;
        this.meters = meters;
    }

    @Override
    public IdentityTokens.Rotation rotate(TenantEnvironmentId id) {
        return rotate(id, "on-demand");
    }

    IdentityTokens.Rotation rotate(TenantEnvironmentId id, String reason) {
        WorkerTokenCluster.SecretToken secret = cluster.read(id).orElseThrow(() -> new WorkerNotProvisioned(id));
        IssuedIdentityToken next = identityTokens.issue(id);
        if (!cluster.replace(id, next.token(), secret.resourceVersion())) {
            identityTokens.revoke(next.id());
            count(reason, "conflict");
            throw new RotationInProgress(id);
        }
        boolean rolled = cluster.roll(id, clock.instant());
        Instant graceEndsAt = identityTokens.retireIssuedBefore(id, next.id());
        count(reason, "rotated");
        log.info(
                "Rotated the identity token of {} ({}): new token {}, {}; the old one works until {}",
                id,
                reason,
                next.id(),
                rolled ? "worker rolled" : "no worker Deployment yet",
                graceEndsAt);
        return new IdentityTokens.Rotation(next, graceEndsAt);
    }

    /**
     * Brings one tenant-environment's rotation to its end state: rotates if the Secret's token is due or
     * no longer valid; otherwise, if older tokens are still live, makes sure the pods were rolled after
     * the Secret's token was issued and retires the older tokens.
     */
    void maintain(TenantEnvironmentId id, Set<UUID> due) {
        Optional<WorkerTokenCluster.SecretToken> secret = cluster.read(id);
        if (secret.isEmpty()) {
            return;
        }
        UUID current = currentTokenId(id, secret.get().token());
        if (current == null) {
            rotate(id, "invalid");
        } else if (due.contains(current)) {
            rotate(id, "due");
        } else {
            finish(id, current);
        }
    }

    /** Completes steps (3) and (4) for the token the Secret holds, if a restart interrupted them. */
    void finish(TenantEnvironmentId id, UUID current) {
        Optional<IdentityTokenRecord> kept = identityTokens.list(id).stream()
                .filter(token -> token.id().equals(current))
                .findFirst();
        Instant now = clock.instant();
        boolean olderLive = identityTokens.list(id).stream()
                .anyMatch(token -> !token.id().equals(current)
                        && token.revokedAt() == null
                        && token.validAt(now)
                        && kept.isPresent()
                        && !token.createdAt().isAfter(kept.get().createdAt()));
        if (kept.isEmpty() || !olderLive) {
            return;
        }
        Instant rolledAt = cluster.rolledAt(id);
        if (rolledAt == null || rolledAt.isBefore(kept.get().createdAt())) {
            cluster.roll(id, now);
        }
        Instant graceEndsAt = identityTokens.retireIssuedBefore(id, current);
        count("resumed", "rotated");
        log.info("Finished an interrupted rotation of {}: older tokens work until {}", id, graceEndsAt);
    }

    private @Nullable UUID currentTokenId(TenantEnvironmentId id, @Nullable String token) {
        return identityTokens
                .verify(token)
                .filter(identity -> identity.tenantEnvironment().equals(id))
                .map(VerifiedIdentity::tokenId)
                .orElse(null);
    }

    private void count(String reason, String outcome) {
        meters.counter("talkide.provisioning.token.rotations", "reason", reason, "outcome", outcome)
                .increment();
    }
}
