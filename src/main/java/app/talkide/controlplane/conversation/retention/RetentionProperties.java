package app.talkide.controlplane.conversation.retention;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The retention job. Which tenant-environments delete old conversations is set per tenant-environment
 * through the admin API (none by default).
 *
 * @param enabled whether this replica runs the job (every replica may: deleting a conversation twice
 *     deletes nothing the second time)
 * @param interval how often it runs
 * @param batch the most conversations one run deletes per tenant-environment; the rest wait for the next
 */
@Validated
@ConfigurationProperties("talkide.conversations.retention")
public record RetentionProperties(
        @DefaultValue("true") boolean enabled,
        @NotNull @DefaultValue("1h") Duration interval,
        @Min(1) @DefaultValue("100") int batch) {}
