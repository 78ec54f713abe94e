package app.talkide.controlplane.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** The spans a {@link CapturesSpans} test's application finished, and the questions trace tests ask of them. */
public final class CapturedSpans {

    private final InMemorySpanExporter exporter;

    private CapturedSpans(InMemorySpanExporter exporter) {
        this.exporter = exporter;
    }

    public List<SpanData> all() {
        return exporter.getFinishedSpanItems();
    }

    public Optional<SpanData> find(Predicate<SpanData> wanted) {
        return all().stream().filter(wanted).findFirst();
    }

    public List<SpanData> inTrace(String traceId) {
        return all().stream().filter(span -> span.getTraceId().equals(traceId)).toList();
    }

    /** The first span that matches, once one has finished. */
    public SpanData awaitSpan(Duration atMost, Predicate<SpanData> wanted) {
        return await().atMost(atMost)
                .until(() -> find(wanted), Optional::isPresent)
                .orElseThrow();
    }

    /** The first span that matches, failing with the whole trace when none does. */
    public static SpanData first(List<SpanData> trace, Predicate<SpanData> wanted) {
        List<SpanData> found = trace.stream().filter(wanted).toList();
        assertThat(found).as("in the trace:\n" + describe(trace)).isNotEmpty();
        return found.getFirst();
    }

    /** The server span of a request, as Spring's HTTP server observation names its attributes. */
    public static boolean isServer(SpanData span, String method, String uriTemplate) {
        return uriTemplate.equals(span.getAttributes().get(AttributeKey.stringKey("uri")))
                && method.equals(span.getAttributes().get(AttributeKey.stringKey("method")));
    }

    /** One line per span, with its parent and attributes, for failure messages. */
    public static String describe(List<SpanData> spans) {
        return spans.stream()
                .map(span -> span.getName() + " " + span.getSpanId() + " <- " + span.getParentSpanId() + " "
                        + span.getAttributes())
                .collect(Collectors.joining("\n"));
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Configuration {

        @Bean
        InMemorySpanExporter inMemorySpanExporter() {
            return InMemorySpanExporter.create();
        }

        @Bean
        CapturedSpans capturedSpans(InMemorySpanExporter exporter) {
            return new CapturedSpans(exporter);
        }
    }
}
