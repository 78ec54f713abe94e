package app.talkide.controlplane.provisioning.schedule;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * When the leader reconciles.
 *
 * @param resyncInterval how often the leader reconciles every tenant-environment (repairs drift nobody
 *     announced: an object deleted or edited by hand); the first resync runs as soon as a replica leads
 * @param changePollInterval how often the leader looks for desired-state changes made through another
 *     replica (a change on the leader itself is reconciled at once)
 * @param maxConcurrent reconciles running at once across tenant-environments (bounds the load on the
 *     API server during a resync)
 * @param initialBackoff first wait before retrying a failed reconcile; doubles per failure
 * @param maxBackoff longest wait between retries of a failing tenant-environment
 */
@Validated
@ConfigurationProperties("talkide.provisioning.schedule")
public record ReconcileScheduleProperties(
        @NotNull @DefaultValue("5m") Duration resyncInterval,
        @NotNull @DefaultValue("2s") Duration changePollInterval,
        @Positive @DefaultValue("8") int maxConcurrent,
        @NotNull @DefaultValue("1s") Duration initialBackoff,
        @NotNull @DefaultValue("5m") Duration maxBackoff) {}
