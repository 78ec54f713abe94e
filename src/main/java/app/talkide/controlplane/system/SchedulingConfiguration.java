package app.talkide.controlplane.system;

import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The one {@link org.springframework.scheduling.TaskScheduler} every timer runs on ({@code @Scheduled} and
 * the components that schedule their own), sized by {@code spring.task.scheduling.pool.size}.
 */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class SchedulingConfiguration {

    @Bean
    ThreadPoolTaskScheduler taskScheduler(ThreadPoolTaskSchedulerBuilder builder, Environment environment) {
        ThreadPoolTaskScheduler scheduler = builder.build();
        scheduler.setVirtualThreads(Threading.VIRTUAL.isActive(environment));
        // Shut down when the context destroys it, after every component stopped its schedules in its own
        // lifecycle: not at context close, when a stopping component may still schedule (a feed's wake-up).
        scheduler.setAcceptTasksAfterContextClose(true);
        return scheduler;
    }
}
