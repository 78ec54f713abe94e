package app.talkide.controlplane.worker;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the control plane talks to workers.
 *
 * @param runtime where workers run: {@code local} (the embedded reference worker; local mode's default)
 *     or {@code kubernetes} (provisioned pods; production's default)
 * @param connectTimeout how long to wait for a worker to accept a connection
 * @param requestTimeout how long to wait for a worker's answer to a command
 * @param streamSilence a worker stream that carries nothing, not even a heartbeat, for this long is
 *     treated as dead and reconnected (workers send a heartbeat every 15 s)
 * @param stream leases on worker streams and how streams are kept
 * @param delivery how messages are delivered to workers
 */
@Validated
@ConfigurationProperties("talkide.worker")
public record WorkerProperties(
        @NotBlank @DefaultValue("local") String runtime,
        @NotNull @DefaultValue("5s") Duration connectTimeout,
        @NotNull @DefaultValue("30s") Duration requestTimeout,
        @NotNull @DefaultValue("45s") Duration streamSilence,
        @Valid @DefaultValue Stream stream,
        @Valid @DefaultValue Delivery delivery) {

    /**
     * @param leaseTtl how long a replica's claim on a worker stream lasts without renewal; another replica
     *     takes the stream over after this (replicas' clocks must agree to well within it)
     * @param leaseRenewInterval how often the holder renews (well below {@code lease-ttl})
     * @param sweepInterval how often each replica looks for streams whose holder died
     * @param idleRelease a stream with no turn running and nothing to deliver is let go after this long
     * @param cursorInterval how often the last consumed worker event id is written while events flow (it is
     *     always written at turn ends and renewals; a lagging cursor only re-reads events the log skips)
     * @param reconnectBackoff first wait before reconnecting a broken stream; doubles up to {@code max-backoff}
     * @param maxBackoff longest wait between reconnects
     */
    public record Stream(
            @NotNull @DefaultValue("15s") Duration leaseTtl,
            @NotNull @DefaultValue("5s") Duration leaseRenewInterval,
            @NotNull @DefaultValue("5s") Duration sweepInterval,
            @NotNull @DefaultValue("5m") Duration idleRelease,
            @NotNull @DefaultValue("500ms") Duration cursorInterval,
            @NotNull @DefaultValue("250ms") Duration reconnectBackoff,
            @NotNull @DefaultValue("15s") Duration maxBackoff) {}

    /**
     * @param initialBackoff first wait before retrying a delivery the worker could not take
     * @param maxBackoff longest wait between delivery attempts
     * @param busyPoll longest wait for a turn to end before asking the worker again (a turn end seen on this
     *     replica wakes the delivery at once)
     * @param sweepInterval how often each replica looks for accepted messages nobody is delivering
     */
    public record Delivery(
            @NotNull @DefaultValue("250ms") Duration initialBackoff,
            @NotNull @DefaultValue("15s") Duration maxBackoff,
            @NotNull @DefaultValue("2s") Duration busyPoll,
            @NotNull @DefaultValue("30s") Duration sweepInterval) {}
}
