package app.talkide.controlplane.conversation.retention;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Conversation retention: per tenant-environment, conversations with no event for longer than its setting
 * are deleted with their events; without a setting they are kept. Each conversation goes in a transaction
 * of its own; every replica may run the job.
 */
@Service
public class ConversationRetention {

    private static final Logger log = LoggerFactory.getLogger(ConversationRetention.class);

    private final RetentionRepository repository;
    private final TransactionTemplate transactions;
    private final RetentionProperties properties;
    private final Clock clock;
    private final Counter deleted;

    ConversationRetention(
            RetentionRepository repository,
            TransactionTemplate transactions,
            RetentionProperties properties,
            Clock clock,
            MeterRegistry meters) {
        this.repository = repository;
        this.transactions = transactions;
        this.properties = properties;
        this.clock = clock;
        this.deleted = Counter.builder("talkide.conversations.retention.deleted")
                .description("Conversations deleted by their tenant-environment's retention setting")
                .register(meters);
    }

    /** Days a conversation is kept after its last event; empty: kept for good. */
    public Optional<Integer> keepDays(TenantEnvironmentId id) {
        return repository.keepDays(id);
    }

    @Transactional
    public void keepFor(TenantEnvironmentId id, int days) {
        repository.set(id, days, clock.instant());
    }

    @Transactional
    public void keepForever(TenantEnvironmentId id) {
        repository.keep(id);
    }

    @Scheduled(
            fixedDelayString = "${talkide.conversations.retention.interval:1h}",
            initialDelayString = "${talkide.conversations.retention.interval:1h}")
    void scheduled() {
        if (properties.enabled()) {
            deleteExpired();
        }
    }

    /** Deletes what the settings say has expired; the number of conversations deleted. */
    public int deleteExpired() {
        int count = 0;
        for (RetentionRepository.Setting setting : repository.settings()) {
            Instant cutoff = clock.instant().minus(Duration.ofDays(setting.keepDays()));
            for (UUID id : repository.idleSince(setting.tenantEnvironment(), cutoff, properties.batch())) {
                try {
                    if (Boolean.TRUE.equals(transactions.execute(status -> repository.deleteIfIdle(id, cutoff)))) {
                        count++;
                    }
                } catch (RuntimeException e) {
                    // The next run tries again; one conversation must not stop the others.
                    log.warn("Could not delete expired conversation {}: {}", id, e.getMessage());
                }
            }
        }
        deleted.increment(count);
        if (count > 0) {
            log.info("Deleted {} conversation(s) past their tenant-environment's retention", count);
        }
        return count;
    }
}
