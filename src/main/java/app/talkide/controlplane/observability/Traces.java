package app.talkide.controlplane.observability;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * The W3C trace context across the hops Spring does not instrument on its own: a user message waits in
 * the outbox (its {@code traceparent} is stored with it) until a delivery thread sends it to the worker,
 * and the control plane's calls to workers go through the JDK's HttpClient. Without a tracer (tests,
 * or tracing switched off) every method is a no-op.
 */
@Component
public class Traces {

    /** The W3C header, and the only form a stored or received context is accepted in. */
    public static final String TRACEPARENT = "traceparent";

    private static final Pattern VALID = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    private final Tracer tracer;
    private final Propagator propagator;

    Traces(ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator) {
        this.tracer = tracer.getIfAvailable(() -> Tracer.NOOP);
        this.propagator = propagator.getIfAvailable(() -> Propagator.NOOP);
    }

    /** The current span's context as a {@code traceparent} value, or null outside a trace. */
    public @Nullable String traceparent() {
        Map<String, String> carrier = new HashMap<>();
        inject(carrier::put);
        String value = carrier.get(TRACEPARENT);
        return value != null && VALID.matcher(value).matches() ? value : null;
    }

    /** Adds the current context's headers ({@code traceparent}) to an outgoing request. */
    public void inject(BiConsumer<String, String> header) {
        Span current = tracer.currentSpan();
        if (current != null) {
            propagator.inject(current.context(), header, (setter, key, value) -> setter.accept(key, value));
        }
    }

    /**
     * Starts a span named {@code name} as a child of the stored context (a new trace if there is none or
     * it is malformed) and makes it current until the returned scope closes.
     */
    public SpanScope continueTrace(String name, @Nullable String traceparent) {
        Span span;
        if (traceparent != null && VALID.matcher(traceparent).matches()) {
            span = propagator
                    .extract(Map.of(TRACEPARENT, traceparent), (carrier, key) -> carrier.get(key))
                    .name(name)
                    .start();
        } else {
            span = tracer.nextSpan().name(name).start();
        }
        return new SpanScope(span, tracer.withSpan(span));
    }

    /**
     * Starts a child of the current span, current until the returned scope closes; a no-op scope when the
     * current span is not recorded (tracing off or not sampled), since nothing would ever export it.
     */
    public SpanScope child(String name) {
        if (!recording()) {
            return SpanScope.NONE;
        }
        Span span = tracer.nextSpan().name(name).start();
        return new SpanScope(span, tracer.withSpan(span));
    }

    /** Whether the current span is recorded: there is one and it is sampled. */
    public boolean recording() {
        Span current = tracer.currentSpan();
        return current != null && Boolean.TRUE.equals(current.context().sampled());
    }

    /** Tags the current span, if any (the server span of the request being handled, say). */
    public void tagCurrent(String key, String value) {
        Span current = tracer.currentSpan();
        if (current != null) {
            current.tag(key, value);
        }
    }

    /** A started span and the scope that makes it current; closing ends both. */
    public static final class SpanScope implements AutoCloseable {

        static final SpanScope NONE = new SpanScope(Span.NOOP, () -> {});

        private final Span span;
        private final Tracer.SpanInScope scope;

        SpanScope(Span span, Tracer.SpanInScope scope) {
            this.span = span;
            this.scope = scope;
        }

        public SpanScope tag(String key, String value) {
            span.tag(key, value);
            return this;
        }

        public void error(Throwable error) {
            span.error(error);
        }

        @Override
        public void close() {
            scope.close();
            span.end();
        }
    }
}
