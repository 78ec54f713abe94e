package app.talkide.controlplane.conversation.stream;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The browser streams.
 *
 * @param heartbeat a comment line is written after this much silence, so proxies keep the connection and
 *     a vanished client is noticed
 * @param retry the reconnect delay the stream asks browsers to use ({@code retry:})
 * @param queueCapacity how many events a subscriber may fall behind the newest before its connection is
 *     closed (it resumes from its last id); at most the feed's ring size
 *     ({@code talkide.conversations.log.ring-size})
 * @param maxPerUser open streams one user may hold on this replica; more answer 429
 * @param writeBatch the most events written with one flush
 * @param replayPage events read from the log per query while replaying
 * @param membershipRecheck how often open streams re-check that their user is still a member; a removal
 *     made on this replica ends the user's streams at once, this bounds how late one made on another
 *     replica does
 */
@Validated
@ConfigurationProperties("talkide.conversations.stream")
public record StreamProperties(
        @NotNull @DefaultValue("15s") Duration heartbeat,
        @NotNull @DefaultValue("3s") Duration retry,
        @Min(1) @DefaultValue("512") int queueCapacity,
        @Min(1) @DefaultValue("16") int maxPerUser,
        @Min(1) @DefaultValue("64") int writeBatch,
        @Min(1) @DefaultValue("500") int replayPage,
        @NotNull @DefaultValue("10s") Duration membershipRecheck) {}
