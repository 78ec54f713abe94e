package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.account.BudgetProperties;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;

/** Usage summed by user, tenant-environment, model, model family or outcome over a time range. */
@Service
public class UsageReports {

    private final UsageRecordRepository records;
    private final BudgetProperties properties;
    private final Clock clock;

    UsageReports(UsageRecordRepository records, BudgetProperties properties, Clock clock) {
        this.records = records;
        this.properties = properties;
        this.clock = clock;
    }

    /** Defaults to the current budget period; {@code userId} narrows it to one user. */
    public UsageReport report(String groupBy, @Nullable Instant from, @Nullable Instant to, @Nullable String userId) {
        if (!UsageRecordRepository.GROUPINGS.containsKey(groupBy)) {
            throw new InvalidUsageQuery("groupBy must be one of "
                    + UsageRecordRepository.GROUPINGS.keySet().stream().sorted().toList());
        }
        Instant now = clock.instant();
        Instant start = from != null ? from : properties.period().start(now);
        Instant end = to != null ? to : properties.period().end(now);
        if (!start.isBefore(end)) {
            throw new InvalidUsageQuery("from must be before to");
        }
        List<UsageSummary> rows = records.summarize(groupBy, start, end, userId == null ? "" : userId);
        return new UsageReport(groupBy, start, end, rows);
    }

    /**
     * How many model calls the gateway recorded for a conversation (every call writes one usage record,
     * on whichever replica served it); the cut-over gate tells "never reached the gateway" from this.
     */
    public int callsOfConversation(UUID conversationId) {
        return records.countOfConversation(conversationId);
    }

    public record UsageReport(String groupBy, Instant from, Instant to, List<UsageSummary> groups) {}
}
