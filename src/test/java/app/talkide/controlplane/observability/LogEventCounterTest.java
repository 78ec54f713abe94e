package app.talkide.controlplane.observability;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code logback.events} is kept by an appender, not by Micrometer's turbo filter: logged events are counted
 * by level, an event below the effective level is not, a disabled level check meets no filter at all, and
 * Prometheus reads the counter as before. Started as the application starts (not a cached
 * {@code @SpringBootTest}), so its counter is the one attached when the test logs (see {@link LogEventCounter}).
 */
class LogEventCounterTest {

    private static final Pattern LEVEL = Pattern.compile("^logback_events_total\\{.*level=\"(\\w+)\".*\\}");

    @TempDir
    Path dataDir;

    @Test
    void loggedEventsAreCountedByLevelAndADisabledCheckMeetsNoFilter() {
        LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger root = logging.getLogger(Logger.ROOT_LOGGER_NAME);
        LogEventAppender appender;
        try (ConfigurableApplicationContext app = start()) {
            appender = app.getBean(LogEventCounter.class).appender();
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            Logger logger = logging.getLogger(LogEventCounterTest.class);
            assertThat(logger.getEffectiveLevel()).isEqualTo(Level.INFO);
            double warnBefore = count(meters, "warn");
            double errorBefore = count(meters, "error");
            double debugBefore = count(meters, "debug");

            logger.warn("LogEventCounterTest: a warning, counted");
            logger.error("LogEventCounterTest: an error, counted");
            logger.debug("LogEventCounterTest: below the effective level, not counted");

            // At least: the application's own threads may log a warning of their own meanwhile.
            assertThat(count(meters, "warn")).isGreaterThanOrEqualTo(warnBefore + 1);
            assertThat(count(meters, "error")).isGreaterThanOrEqualTo(errorBefore + 1);
            assertThat(count(meters, "debug")).as("nothing here logs at debug").isEqualTo(debugBefore);
            assertThat(root.isAttached(appender)).isTrue();
            assertThat(logging.getTurboFilterList())
                    .as("no turbo filter, so a disabled level check (Jetty's isDebugEnabled) calls nothing")
                    .isEmpty();
            assertThat(logging.getLoggerList())
                    .as("every logger reaches the root's appenders; a non-additive one needs the appender too")
                    .allMatch(Logger::isAdditive);

            int managementPort = app.getEnvironment().getRequiredProperty("local.management.port", Integer.class);
            String scraped =
                    new TestHttp(managementPort).get("/actuator/prometheus").body();
            assertThat(scraped)
                    .contains("# HELP logback_events_total Number of log events that were enabled by the effective"
                            + " log level");
            assertThat(scraped.lines().map(LEVEL::matcher).filter(Matcher::find).map(level -> level.group(1)))
                    .containsExactlyInAnyOrder("error", "warn", "info", "debug", "trace");
        }
        assertThat(root.isAttached(appender)).as("detached on shutdown").isFalse();
    }

    @Test
    void aResetLoggerContextKeepsCountingUntilTheCounterIsClosed() {
        LoggerContext logging = new LoggerContext();
        MeterRegistry meters = new SimpleMeterRegistry();
        Logger logger = logging.getLogger("reset-test");
        LogEventCounter counter = new LogEventCounter(meters, logging);
        counter.attach();

        logger.warn("before the reset");
        logging.reset();
        logger.warn("after the reset");
        assertThat(count(meters, "warn")).isEqualTo(2);

        counter.close();
        logger.warn("after close");
        logging.reset();
        logger.warn("after close and another reset");
        assertThat(count(meters, "warn")).as("closed stays closed").isEqualTo(2);
    }

    private static double count(MeterRegistry meters, String level) {
        return meters.get(LogEventAppender.METER).tag("level", level).counter().count();
    }

    private ConfigurableApplicationContext start() {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--talkide.data-dir=" + dataDir));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));
        return new SpringApplicationBuilder(ControlPlaneApplication.class).run(args.toArray(String[]::new));
    }
}
