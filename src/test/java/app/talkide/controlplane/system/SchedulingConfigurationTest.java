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
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/** The one scheduler: sized by its property, on virtual threads, and shut down after the components using it stopped. */
class SchedulingConfigurationTest {

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class))
            .withUserConfiguration(SchedulingConfiguration.class)
            .withBean(StoppingComponent.class)
            .withPropertyValues("spring.threads.virtual.enabled=true", "spring.task.scheduling.pool.size=3");

    @Test
    void timersRunOnVirtualThreadsOfAPoolSizedByItsProperty() {
        runner.run(context -> {
            ThreadPoolTaskScheduler scheduler = context.getBean(ThreadPoolTaskScheduler.class);
            CompletableFuture<Boolean> virtual = new CompletableFuture<>();
            scheduler.schedule(
                    () -> virtual.complete(Thread.currentThread().isVirtual()),
                    scheduler.getClock().instant());

            assertThat(context.getBeansOfType(TaskScheduler.class)).hasSize(1);
            assertThat(scheduler.getScheduledThreadPoolExecutor().getCorePoolSize())
                    .isEqualTo(3);
            assertThat(virtual.get(30, TimeUnit.SECONDS)).isTrue();
        });
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
