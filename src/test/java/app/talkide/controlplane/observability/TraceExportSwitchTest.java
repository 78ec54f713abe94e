package app.talkide.controlplane.observability;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.support.TestDatabase;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Spans leave the process only when an OTLP endpoint is configured (the chart's {@code tracing.otlpEndpoint});
 * trace and span ids are made either way, for the logs. Started as the application starts, not as a
 * {@code @SpringBootTest}, which switches exporters off on its own.
 */
class TraceExportSwitchTest {

    @TempDir
    Path dataDir;

    @Test
    void withoutAnEndpointNothingIsExportedButTracesAreStillMade() {
        try (ConfigurableApplicationContext app = start()) {
            assertThat(otlpExporters(app)).isEmpty();
            assertThat(app.getBean(Tracer.class)).isNotSameAs(Tracer.NOOP);
        }
    }

    @Test
    void anEndpointTurnsTheOtlpExporterOn() {
        try (ConfigurableApplicationContext app =
                start("--management.opentelemetry.tracing.export.otlp.endpoint=http://127.0.0.1:1/v1/traces")) {
            assertThat(otlpExporters(app)).hasSize(1);
        }
    }

    private static List<SpanExporter> otlpExporters(ConfigurableApplicationContext app) {
        return app.getBeanProvider(SpanExporter.class).stream()
                .filter(OtlpHttpSpanExporter.class::isInstance)
                .toList();
    }

    private ConfigurableApplicationContext start(String... extra) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--talkide.data-dir=" + dataDir));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));
        args.addAll(List.of(extra));
        return new SpringApplicationBuilder(ControlPlaneApplication.class).run(args.toArray(String[]::new));
    }
}
