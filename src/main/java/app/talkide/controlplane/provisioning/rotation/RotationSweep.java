package app.talkide.controlplane.provisioning.rotation;

import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.provisioning.leader.LeadershipChanged;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.identity.IdentityTokenRecord;
import app.talkide.controlplane.token.identity.IdentityTokens;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;

/**
 * On the leader, every {@code check-interval}: rotates workers whose token reached its lifetime share,
 * and finishes rotations a restart interrupted. Which tenant-environments to look at comes from the
 * token table alone (a token due, or more than one live token), so a steady state costs one query and
 * no call to the API server.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
public class RotationSweep implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(RotationSweep.class);

    private final IdentityTokens identityTokens;
    private final KubernetesIdentityTokenRotator rotator;
    private final LeaderElection leaderElection;
    private final RotationProperties properties;
    private final TaskScheduler scheduler;
    private volatile @Nullable ScheduledFuture<?> loop;

    RotationSweep(
            IdentityTokens identityTokens,
            KubernetesIdentityTokenRotator rotator,
            LeaderElection leaderElection,
            RotationProperties properties,
            TaskScheduler scheduler) {
        this.identityTokens = identityTokens;
        this.rotator = rotator;
        this.leaderElection = leaderElection;
        this.properties = properties;
        this.scheduler = scheduler;
    }

    @EventListener
    void onLeadershipChanged(LeadershipChanged changed) {
        ScheduledFuture<?> current = loop;
        if (current != null) {
            current.cancel(false);
        }
        if (changed.leading()) {
            loop = scheduler.scheduleWithFixedDelay(this::sweep, properties.checkInterval());
        }
    }

    /** One pass over every tenant-environment that needs a look. */
    public void sweep() {
        if (!leaderElection.isLeader()) {
            return;
        }
        try {
            Map<TenantEnvironmentId, List<IdentityTokenRecord>> live = identityTokens.dueForRotation(0.0).stream()
                    .collect(Collectors.groupingBy(IdentityTokenRecord::tenantEnvironment));
            Set<UUID> due = identityTokens.dueForRotation(properties.lifetimeShare()).stream()
                    .map(IdentityTokenRecord::id)
                    .collect(Collectors.toSet());
            live.forEach((id, tokens) -> {
                boolean anyDue = tokens.stream().anyMatch(token -> due.contains(token.id()));
                if (anyDue || tokens.size() > 1) {
                    maintain(id, due);
                }
            });
        } catch (RuntimeException e) {
            log.warn("Token rotation sweep failed; trying again next interval", e);
        }
    }

    private void maintain(TenantEnvironmentId id, Set<UUID> due) {
        try {
            rotator.maintain(id, due);
        } catch (RuntimeException e) {
            log.warn("Token rotation of {} failed; the old token stays valid and the next sweep retries", id, e);
        }
    }

    @Override
    public void destroy() {
        ScheduledFuture<?> current = loop;
        if (current != null) {
            current.cancel(true);
        }
    }
}
