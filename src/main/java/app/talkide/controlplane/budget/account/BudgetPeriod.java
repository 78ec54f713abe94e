package app.talkide.controlplane.budget.account;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;

/** The calendar period a spending limit applies to, in UTC. */
public enum BudgetPeriod {
    DAY,
    WEEK,
    MONTH;

    /** The first instant of the period that contains {@code now}. */
    public Instant start(Instant now) {
        ZonedDateTime day = now.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.DAYS);
        return switch (this) {
            case DAY -> day.toInstant();
            case WEEK ->
                day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).toInstant();
            case MONTH -> day.withDayOfMonth(1).toInstant();
        };
    }

    /** The first instant after the period that contains {@code now}: when its limit resets. */
    public Instant end(Instant now) {
        ZonedDateTime start = start(now).atZone(ZoneOffset.UTC);
        return switch (this) {
            case DAY -> start.plusDays(1).toInstant();
            case WEEK -> start.plusWeeks(1).toInstant();
            case MONTH -> start.plusMonths(1).toInstant();
        };
    }
}
