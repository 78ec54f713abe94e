package app.talkide.controlplane.conversation.compaction;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Compaction of ended turns in the conversation event log.
 *
 * @param enabled whether this replica runs the compaction job (every replica may: compacting one
 *     conversation twice at once is serialised on its compaction row and the second finds nothing to do)
 * @param interval how often the job looks for ended turns
 * @param after how long after a turn ended its pieces are folded. Keep it above the worker streams'
 *     lease TTL plus their sweep interval (20 s by default): a replica taking over a worker stream may
 *     receive the turn's last events again, and the log recognises them only while their rows exist
 * @param purgeBatch how many sequence numbers one delete statement covers (a short transaction each, so
 *     deleting a long conversation's deltas never holds locks long)
 * @param conversationsPerRun the most conversations one run of the job compacts; the rest wait for the next
 */
@Validated
@ConfigurationProperties("talkide.conversations.compaction")
public record CompactionProperties(
        @DefaultValue("true") boolean enabled,
        @NotNull @DefaultValue("10s") Duration interval,
        @NotNull @DefaultValue("1m") Duration after,
        @Min(1) @DefaultValue("2000") int purgeBatch,
        @Min(1) @DefaultValue("200") int conversationsPerRun) {}
