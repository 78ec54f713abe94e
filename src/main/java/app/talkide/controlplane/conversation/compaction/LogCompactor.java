package app.talkide.controlplane.conversation.compaction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * The background job that compacts the event log. Per conversation, turn by turn (one short transaction
 * each, under the conversation's compaction row lock): find the next ended turn, fold its pieces into
 * one event per block in place, move {@code folded_through}. Then delete the folded pieces in batches of
 * sequence numbers, each a statement of its own. Appends never wait for it: they lock another row and
 * write rows compaction never touches. Every replica may run it; the row lock and the guarded updates
 * make a second run on the same conversation a no-op.
 */
@Component
public class LogCompactor {

    private static final Logger log = LoggerFactory.getLogger(LogCompactor.class);

    private final CompactionRepository repository;
    private final TransactionTemplate transactions;
    private final CompactionProperties properties;
    private final Clock clock;
    private final TurnFolder folder = new TurnFolder(JsonMapper.builder().build());
    private final Counter turns;
    private final Counter deleted;

    LogCompactor(
            CompactionRepository repository,
            TransactionTemplate transactions,
            CompactionProperties properties,
            Clock clock,
            MeterRegistry meters) {
        this.repository = repository;
        this.transactions = transactions;
        this.properties = properties;
        this.clock = clock;
        this.turns = Counter.builder("talkide.conversations.compaction.turns")
                .description("Ended turns folded into one event per content block")
                .register(meters);
        this.deleted = Counter.builder("talkide.conversations.compaction.deleted")
                .description("Event rows of folded pieces deleted")
                .register(meters);
    }

    @Scheduled(
            fixedDelayString = "${talkide.conversations.compaction.interval:10s}",
            initialDelayString = "${talkide.conversations.compaction.interval:10s}")
    void scheduled() {
        if (properties.enabled()) {
            compactDue();
        }
    }

    /** Compacts every conversation whose log grew since it was last looked at; the number of turns folded. */
    public int compactDue() {
        int folded = 0;
        for (UUID conversationId : repository.candidates(properties.conversationsPerRun())) {
            try {
                folded += compact(conversationId);
            } catch (RuntimeException e) {
                // The next run tries again; one conversation's trouble must not stop the others.
                log.warn("Could not compact conversation {}: {}", conversationId, e.getMessage());
            }
        }
        return folded;
    }

    /** Folds the conversation's turns that ended long enough ago and deletes their pieces; turns folded. */
    public int compact(UUID conversationId) {
        int folded = 0;
        while (Boolean.TRUE.equals(transactions.execute(status -> foldNextTurn(conversationId)))) {
            folded++;
        }
        turns.increment(folded);
        purge(conversationId);
        return folded;
    }

    private boolean foldNextTurn(UUID conversationId) {
        CompactionRepository.State state = repository.lock(conversationId);
        // Read before looking for turn ends: everything up to it is committed, so a turn end appended
        // after this read is beyond it and never marked idle unseen.
        long last = repository.lastSeq(conversationId);
        long from = Math.max(state.foldedThrough(), state.idleThrough());
        Optional<CompactionRepository.TurnEnd> end = repository.nextTurnEnd(conversationId, from);
        if (end.isEmpty()) {
            repository.idle(conversationId, last);
            return false;
        }
        Instant cutoff = clock.instant().minus(properties.after());
        if (end.get().at().isAfter(cutoff)) {
            repository.idle(conversationId, end.get().seq() - 1);
            return false;
        }
        long through = end.get().seq();
        List<TurnFolder.Rewrite> rewrites =
                folder.fold(repository.range(conversationId, state.foldedThrough(), through));
        rewrites.forEach(rewrite -> repository.rewrite(conversationId, rewrite));
        repository.folded(conversationId, through);
        return true;
    }

    private void purge(UUID conversationId) {
        CompactionRepository.State state = repository.state(conversationId);
        long after = state.purgedThrough();
        while (after < state.foldedThrough()) {
            long through = Math.min(state.foldedThrough(), after + properties.purgeBatch());
            deleted.increment(repository.purge(conversationId, after, through));
            after = through;
        }
    }
}
