package app.talkide.controlplane.observability;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggerContextListener;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Keeps {@code logback.events} with an appender on the root logger ({@link LogEventAppender}) in place of
 * Micrometer's {@code LogbackMetrics}, whose auto-configuration application.yaml excludes. That one installs a
 * turbo filter, and logback calls turbo filters on every level check, enabled or not: Jetty's
 * {@code isDebugEnabled()} checks on every request were 4.5 % of the gateway's CPU under load. An appender
 * runs only for events that are logged, and with no turbo filter a disabled check is an empty-list test and
 * a level comparison.
 *
 * <p>The root logger alone sees every logged event because every logger here is additive: there is no
 * logback configuration file, only Spring Boot's defaults. A logger made non-additive (a
 * {@code logback-spring.xml} with {@code additivity="false"}) would escape the count;
 * {@code LogEventCounterTest} fails then, as a reminder to attach the appender to it too.
 *
 * <p>A reset of the logger context detaches every appender; as {@code LogbackMetrics} does with its filter, a
 * reset-resistant listener attaches it again. Spring Boot's full re-initialization of logging (an
 * application starting in the same JVM after every other one closed, which only tests do) also stops the
 * context, and that drops even reset-resistant listeners, {@code LogbackMetrics}' included: the counter of
 * the application that starts then is the one attached.
 */
@Component
class LogEventCounter implements AutoCloseable {

    private final LoggerContext logging;
    private final LogEventAppender appender;
    private final LoggerContextListener reattach = new Reattach();

    @Autowired
    LogEventCounter(MeterRegistry registry) {
        this(registry, (LoggerContext) LoggerFactory.getILoggerFactory());
    }

    LogEventCounter(MeterRegistry registry, LoggerContext logging) {
        this.logging = logging;
        this.appender = new LogEventAppender(registry);
        appender.setContext(logging);
    }

    @PostConstruct
    void attach() {
        logging.addListener(reattach);
        attachToRoot();
    }

    /** Spring calls it on shutdown (an {@link AutoCloseable} bean); later events are not counted. */
    @Override
    public void close() {
        logging.removeListener(reattach);
        logging.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
        appender.stop();
    }

    LogEventAppender appender() {
        return appender;
    }

    private void attachToRoot() {
        // A reset stops the appenders it detaches, and a stopped appender drops every event.
        appender.start();
        logging.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
    }

    private final class Reattach implements LoggerContextListener {

        @Override
        public boolean isResetResistant() {
            return true;
        }

        @Override
        public void onReset(LoggerContext context) {
            attachToRoot();
        }

        @Override
        public void onStart(LoggerContext context) {}

        @Override
        public void onStop(LoggerContext context) {}

        @Override
        public void onLevelChange(Logger logger, Level level) {}
    }
}
