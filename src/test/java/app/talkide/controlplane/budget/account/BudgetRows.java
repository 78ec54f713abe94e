package app.talkide.controlplane.budget.account;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Budget rows and settings for unit tests of the budget's logic (no database): a row starts as a user
 * who spent nothing this period, with no overrides, and each setter changes one field.
 */
public final class BudgetRows {

    /** Defaults small enough to read: a $10 monthly limit, 4 calls at once, 10 a minute, 1000 tokens an hour. */
    public static BudgetProperties properties(Enforcement enforcement) {
        return new BudgetProperties(
                10_000_000,
                BudgetPeriod.MONTH,
                enforcement,
                Duration.ofMinutes(30),
                Duration.ofMinutes(1),
                new BudgetProperties.FairUse(4, 10, 1_000),
                new BudgetProperties.Lease(
                        true, 1_000_000, 2_000_000, 8, 60, Duration.ofSeconds(2), Duration.ofSeconds(60)));
    }

    public static BudgetProperties properties() {
        return properties(Enforcement.HARD);
    }

    public static BudgetRows of(String userId, LimitWindows now) {
        return new BudgetRows(userId, now);
    }

    private final String userId;
    private @Nullable Long limit;
    private @Nullable Enforcement enforcement;
    private @Nullable Integer maxConcurrent;
    private @Nullable Integer requestsPerMinute;
    private @Nullable Long tokensPerHour;
    private Instant periodStart;
    private long spent;
    private long reserved;
    private int inFlight;
    private Instant minuteStart;
    private int minuteRequests;
    private Instant hourStart;
    private long hourTokens;

    private BudgetRows(String userId, LimitWindows now) {
        this.userId = userId;
        this.periodStart = now.period();
        this.minuteStart = now.minute();
        this.hourStart = now.hour();
    }

    public BudgetRows limit(long micros) {
        limit = micros;
        return this;
    }

    public BudgetRows enforcement(Enforcement value) {
        enforcement = value;
        return this;
    }

    public BudgetRows maxConcurrent(int value) {
        maxConcurrent = value;
        return this;
    }

    public BudgetRows requestsPerMinute(int value) {
        requestsPerMinute = value;
        return this;
    }

    public BudgetRows tokensPerHour(long value) {
        tokensPerHour = value;
        return this;
    }

    public BudgetRows spent(long micros) {
        spent = micros;
        return this;
    }

    /** Spend booked in an earlier period (the row was not touched since). */
    public BudgetRows spentIn(Instant period, long micros) {
        periodStart = period;
        spent = micros;
        return this;
    }

    public BudgetRows reserved(long micros) {
        reserved = micros;
        return this;
    }

    public BudgetRows inFlight(int calls) {
        inFlight = calls;
        return this;
    }

    public BudgetRows minute(Instant start, int requests) {
        minuteStart = start;
        minuteRequests = requests;
        return this;
    }

    public BudgetRows hour(Instant start, long tokens) {
        hourStart = start;
        hourTokens = tokens;
        return this;
    }

    public BudgetRow row() {
        return new BudgetRow(
                userId,
                limit,
                enforcement,
                maxConcurrent,
                requestsPerMinute,
                tokensPerHour,
                periodStart,
                spent,
                reserved,
                inFlight,
                minuteStart,
                minuteRequests,
                hourStart,
                hourTokens);
    }
}
