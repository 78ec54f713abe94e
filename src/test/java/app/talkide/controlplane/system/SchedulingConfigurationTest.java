package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * What this configuration adds to Spring Boot's scheduler: its threads follow the application's choice of
 * virtual threads, and it outlives the components that schedule while they stop. (Sizing by
 * {@code spring.task.scheduling.pool.size} is Spring Boot's own and tested there.)
 */
class SchedulingConfigurationTest {

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class))
            .withUserConfiguration(SchedulingConfiguration.class)
            .withBean(StoppingComponent.class)
            .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void timersRunOnVirtualThreadsWhenTheApplicationDoes() {
        runner.run(context -> assertThat(timerThreadIsVirtual(context)).isTrue());
    }

    @Test
    void timersRunOnPlatformThreadsWhenTheApplicationDoes() {
        runner.withPropertyValues("spring.threads.virtual.enabled=false")
                .run(context -> assertThat(timerThreadIsVirtual(context)).isFalse());
    }

    private static boolean timerThreadIsVirtual(ApplicationContext context) throws Exception {
        ThreadPoolTaskScheduler scheduler = context.getBean(ThreadPoolTaskScheduler.class);
        CompletableFuture<Boolean> virtual = new CompletableFuture<>();
        scheduler.schedule(
                () -> virtual.complete(Thread.currentThread().isVirtual()),
                scheduler.getClock().instant());
        return virtual.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aComponentStillSchedulesWhileItStopsAndTheSchedulerShutsDownAfterIt() {
        StoppingComponent[] component = new StoppingComponent[1];
        ThreadPoolTaskScheduler[] scheduler = new ThreadPoolTaskScheduler[1];
        runner.run(context -> {
            component[0] = context.getBean(StoppingComponent.class);
            scheduler[0] = context.getBean(ThreadPoolTaskScheduler.class);
            assertThat(scheduler[0].getScheduledThreadPoolExecutor().isShutdown())
                    .isFalse();
        });

        ScheduledFuture<?> late = component[0].scheduledWhileStopping;
        assertThat((Object) late).as("accepted during the component's stop").isNotNull();
        assertThat(scheduler[0].getScheduledThreadPoolExecutor().isShutdown()).isTrue();
        assertThat(late.isCancelled())
                .as("cancelled by the shutdown that followed")
                .isTrue();
    }

    /** Schedules in its own stop(), as a component finishing its work while the context closes may. */
    static class StoppingComponent implements SmartLifecycle {
        private final TaskScheduler scheduler;
        private volatile boolean running;
        volatile @Nullable ScheduledFuture<?> scheduledWhileStopping;

        StoppingComponent(TaskScheduler scheduler) {
            this.scheduler = scheduler;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
            scheduledWhileStopping =
                    scheduler.schedule(() -> {}, scheduler.getClock().instant().plus(Duration.ofHours(1)));
        }

        @Override
        public boolean isRunning() {
            return running;
        }
    }
}
