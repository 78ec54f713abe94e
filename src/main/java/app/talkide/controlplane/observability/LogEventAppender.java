package app.talkide.controlplane.observability;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;

/**
 * Counts the events logback hands to appenders, by level, in {@code logback.events}: the name, tags,
 * description and unit of Micrometer's {@code LogbackMetrics}, so dashboards and queries read it as before.
 * Unsynchronized: {@code AppenderBase} would make every logging thread take one lock, and the counters are
 * safe to increment concurrently.
 */
final class LogEventAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {

    static final String METER = "logback.events";
    static final String NAME = "talkide-logback-events";

    private final Counter error;
    private final Counter warn;
    private final Counter info;
    private final Counter debug;
    private final Counter trace;

    LogEventAppender(MeterRegistry registry) {
        error = counter(registry, "error");
        warn = counter(registry, "warn");
        info = counter(registry, "info");
        debug = counter(registry, "debug");
        trace = counter(registry, "trace");
        setName(NAME);
    }

    @Override
    protected void append(ILoggingEvent event) {
        switch (event.getLevel().toInt()) {
            case Level.ERROR_INT -> error.increment();
            case Level.WARN_INT -> warn.increment();
            case Level.INFO_INT -> info.increment();
            case Level.DEBUG_INT -> debug.increment();
            case Level.TRACE_INT -> trace.increment();
            default -> {
                // OFF and ALL are thresholds, never an event's level.
            }
        }
    }

    private static Counter counter(MeterRegistry registry, String level) {
        return Counter.builder(METER)
                .tag("level", level)
                .description("Number of log events that were enabled by the effective log level")
                .baseUnit(BaseUnits.EVENTS)
                .register(registry);
    }
}
