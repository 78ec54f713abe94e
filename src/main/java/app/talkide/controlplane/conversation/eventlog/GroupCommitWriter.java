package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.NewConversationEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Group commit: one writer thread takes every append that waits and writes them in one transaction, so
 * a fast text stream (and many of them at once) costs a transaction per batch, not per delta. Each
 * caller returns when its events are committed; appends to one conversation keep their queue order.
 */
@Component
class GroupCommitWriter implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(GroupCommitWriter.class);

    private final LinkedBlockingQueue<PendingAppend> queue = new LinkedBlockingQueue<>();
    private final EventLogRepository repository;
    private final OneStatementAppend oneStatement;
    private final ConversationFeeds feeds;
    private final NotificationChannel channel;
    private final TransactionTemplate transactions;
    private final EventLogProperties properties;
    private final Clock clock;
    private final DistributionSummary batchSizes;
    private final Counter raced;
    private volatile boolean running;
    private volatile Thread writer;

    GroupCommitWriter(
            EventLogRepository repository,
            OneStatementAppend oneStatement,
            ConversationFeeds feeds,
            NotificationChannel channel,
            TransactionTemplate transactions,
            EventLogProperties properties,
            Clock clock,
            MeterRegistry meters) {
        this.repository = repository;
        this.oneStatement = oneStatement;
        this.feeds = feeds;
        this.channel = channel;
        this.transactions = transactions;
        this.properties = properties;
        this.clock = clock;
        this.batchSizes = DistributionSummary.builder("talkide.conversations.log.batch.events")
                .description("Events written per group-commit transaction")
                .register(meters);
        this.raced = Counter.builder("talkide.conversations.log.append.raced")
                .description("Batches written again with locks first: another replica stored some of their"
                        + " worker events while the one-statement append waited (PostgreSQL)")
                .register(meters);
    }

    List<ConversationEvent> append(UUID conversationId, List<NewConversationEvent> events) {
        if (events.isEmpty()) {
            return List.of();
        }
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            return appendInCallersTransaction(conversationId, events);
        }
        PendingAppend pending = new PendingAppend(conversationId, events);
        queue.add(pending);
        if (!running) {
            // Before start or after stop nobody takes from the queue: write on the caller's thread.
            writeWaiting();
        }
        try {
            return pending.done().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /**
     * An append that is part of the caller's transaction (a message stored with its outbox row) is written
     * on the caller's connection, the slow way, and becomes visible, to subscribers and other replicas,
     * when that transaction commits. Handing it to the writer instead would make the caller hold one pooled
     * connection while the writer waits for another: enough such callers at once and the pool is empty
     * (the writer stalls for the pool's timeout), and the event would commit apart from the outbox row.
     */
    private List<ConversationEvent> appendInCallersTransaction(UUID conversationId, List<NewConversationEvent> events) {
        SortedMap<UUID, List<List<NewConversationEvent>>> appends = new TreeMap<>();
        appends.put(conversationId, List.of(events));
        List<ConversationEvent> stored =
                repository.append(appends, clock.instant()).get(conversationId).getFirst();
        if (!stored.isEmpty()) {
            if (channel.crossesReplicas()) {
                // NOTIFY in a transaction is delivered when it commits, and not at all if it rolls back.
                channel.batches(List.of(
                                channel.payload(conversationId, stored.getLast().seq())))
                        .forEach(payload -> repository.notify(channel.name(), payload));
            }
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    feeds.published(conversationId, stored);
                }
            });
        }
        return stored;
    }

    private void run() {
        while (running) {
            try {
                PendingAppend first = queue.take();
                List<PendingAppend> batch = new ArrayList<>();
                batch.add(first);
                int events = first.events().size();
                PendingAppend next;
                while (events < properties.maxBatchEvents() && (next = queue.poll()) != null) {
                    batch.add(next);
                    events += next.events().size();
                }
                write(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.error("Event log writer failed; continuing", e);
            }
        }
    }

    private synchronized void writeWaiting() {
        List<PendingAppend> batch = new ArrayList<>();
        queue.drainTo(batch);
        if (!batch.isEmpty()) {
            write(batch);
        }
    }

    private void write(List<PendingAppend> batch) {
        Map<UUID, List<ConversationEvent>> committed;
        try {
            committed = commit(batch);
        } catch (RuntimeException e) {
            if (batch.size() == 1) {
                batch.getFirst().done().completeExceptionally(e);
            } else {
                // One bad append (e.g. an unknown conversation) must not fail the others: write each alone.
                batch.forEach(pending -> write(List.of(pending)));
            }
            return;
        }
        batchSizes.record(batch.stream().mapToInt(p -> p.events().size()).sum());
        if (committed != null) {
            committed.forEach(feeds::published);
        }
    }

    /**
     * On PostgreSQL the batch is one statement outside any transaction: it is its own transaction, and
     * PostgreSQL answers only once it is committed (and on disk), so a batch is one round trip. Should
     * another replica have stored some of the same worker events meanwhile, the batch is written again
     * the slow way (see {@link OneStatementAppend}). H2 always takes the slow way: lock, look up, insert,
     * move, in a transaction.
     */
    private @Nullable Map<UUID, List<ConversationEvent>> commit(List<PendingAppend> batch) {
        SortedMap<UUID, List<PendingAppend>> byConversation = new TreeMap<>();
        batch.forEach(pending -> byConversation
                .computeIfAbsent(pending.conversationId(), id -> new ArrayList<>())
                .add(pending));
        SortedMap<UUID, List<List<NewConversationEvent>>> appends = new TreeMap<>();
        byConversation.forEach((id, pendings) ->
                appends.put(id, pendings.stream().map(PendingAppend::events).toList()));
        // Callers inside a transaction of their own never come here (appendInCallersTransaction); the check
        // below only keeps the one-statement path from ever running inside one.
        if (channel.crossesReplicas() && !TransactionSynchronizationManager.isActualTransactionActive()) {
            try {
                Written written = written(byConversation, oneStatement.append(appends, clock.instant(), channel));
                written.completions().forEach(Runnable::run);
                return written.committed();
            } catch (OneStatementAppend.AppendRaced e) {
                raced.increment();
                log.debug("Concurrent append of the same worker events; writing the batch again with locks first");
            }
        }
        return transactions.execute(status -> {
            Written written = written(byConversation, repository.append(appends, clock.instant()));
            if (channel.crossesReplicas()) {
                channel.batches(written.notifications()).forEach(payload -> repository.notify(channel.name(), payload));
            }
            // Callers learn of their events only after the commit, as do subscribers.
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    written.completions().forEach(Runnable::run);
                }
            });
            return written.committed();
        });
    }

    /** What a batch stored, per conversation; how to tell each caller; the notifications it calls for. */
    private record Written(
            Map<UUID, List<ConversationEvent>> committed, List<Runnable> completions, List<String> notifications) {}

    /** Conversations in a fixed order, so that two replicas' batches lock their sequence rows alike. */
    private Written written(
            SortedMap<UUID, List<PendingAppend>> byConversation, Map<UUID, List<List<ConversationEvent>>> stored) {
        Map<UUID, List<ConversationEvent>> committed = new LinkedHashMap<>();
        List<Runnable> completions = new ArrayList<>();
        List<String> notifications = new ArrayList<>();
        byConversation.forEach((conversationId, pendings) -> {
            List<List<ConversationEvent>> results = stored.get(conversationId);
            List<ConversationEvent> all = new ArrayList<>();
            for (int i = 0; i < pendings.size(); i++) {
                PendingAppend pending = pendings.get(i);
                List<ConversationEvent> events = results.get(i);
                all.addAll(events);
                completions.add(() -> pending.done().complete(events));
            }
            if (!all.isEmpty()) {
                notifications.add(channel.payload(conversationId, all.getLast().seq()));
            }
            committed.put(conversationId, all);
        });
        return new Written(committed, completions, notifications);
    }

    @Override
    public void start() {
        running = true;
        // A platform thread: it spends its life in blocking JDBC round trips, which on a virtual thread each
        // cost a hop through the socket poller and back onto a carrier before the next statement goes out.
        writer = Thread.ofPlatform().name("conversation-event-writer").daemon().start(this::run);
    }

    @Override
    public void stop() {
        running = false;
        Thread stopping = writer;
        writer = null;
        if (stopping != null) {
            stopping.interrupt();
            try {
                stopping.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        writeWaiting();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Starts before and stops after the worker streams and web server that append. */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }
}
