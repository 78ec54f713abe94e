package app.talkide.controlplane.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

/**
 * A {@code @SpringBootTest} that samples every trace and keeps its finished spans in memory, exported
 * within 100 ms: inject {@link CapturedSpans} to read them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@AutoConfigureTracing
@Import(CapturedSpans.Configuration.class)
@TestPropertySource(
        properties = {
            "management.tracing.sampling.probability=1.0",
            "management.opentelemetry.tracing.export.schedule-delay=100ms"
        })
public @interface CapturesSpans {}
