package app.talkide.controlplane.worker;

import java.util.Map;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/** A {@link WorkerLocator} over a given runtime, for tests that build the worker side by hand. */
public final class TestWorkerLocators {

    private TestWorkerLocators() {}

    public static WorkerLocator fixed(WorkerRuntime runtime, WorkerProperties properties) {
        return new WorkerLocator(
                new StaticListableBeanFactory(Map.of("runtime", runtime)).getBeanProvider(WorkerRuntime.class),
                properties);
    }
}
