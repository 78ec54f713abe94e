package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;

/**
 * The gateway's Prometheus metrics. Tags are bounded sets (endpoint, outcome, model family, status
 * code), never raw model ids or user input, and never anything secret.
 */
@Component
class GatewayMetrics {

    private final MeterRegistry registry;
    private final AtomicInteger openStreams = new AtomicInteger();

    GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        registry.gauge("talkide.gateway.streams.open", openStreams);
    }

    /** Whole call, from the request's arrival to its last byte. */
    void completed(String endpoint, String outcome, Duration duration) {
        timer("talkide.gateway.duration", "Gateway call duration", "endpoint", endpoint, "outcome", outcome)
                .record(duration);
    }

    /** Arrival to the first response byte sent to the worker. */
    void firstByte(String endpoint, Duration timeToFirstByte) {
        timer("talkide.gateway.first.byte", "Time to first byte", "endpoint", endpoint)
                .record(timeToFirstByte);
    }

    /**
     * Time the gateway itself spent before the first byte, by phase: {@code arrival} (from the request's
     * headers to the controller: servlet container, security chain, token check), {@code before_upstream}
     * (from the controller to the upstream call: body, parsing, budget), {@code budget} (the reservation
     * alone, a part of {@code before_upstream}) and {@code relay} (from the upstream's headers to our first
     * byte out).
     */
    void overhead(String endpoint, String phase, Duration added) {
        timer(
                        "talkide.gateway.overhead",
                        "Time added by the gateway before the first byte",
                        "endpoint",
                        endpoint,
                        "phase",
                        phase)
                .record(added);
    }

    void upstreamStatus(int status) {
        registry.counter("talkide.gateway.upstream.responses", "status", Integer.toString(status))
                .increment();
    }

    void usage(String family, TokenCounts tokens, long costMicros) {
        count(family, "input", tokens.input());
        count(family, "cache_write_5m", tokens.cacheWrite5m());
        count(family, "cache_write_1h", tokens.cacheWrite1h());
        count(family, "cache_read", tokens.cacheRead());
        count(family, "output", tokens.output());
        registry.counter("talkide.gateway.cost.micros", "family", family).increment(costMicros);
    }

    void streamOpened() {
        openStreams.incrementAndGet();
    }

    void streamClosed() {
        openStreams.decrementAndGet();
    }

    private void count(String family, String kind, long tokens) {
        if (tokens > 0) {
            registry.counter("talkide.gateway.tokens", "family", family, "kind", kind)
                    .increment(tokens);
        }
    }

    private Timer timer(String name, String description, String... tags) {
        return Timer.builder(name)
                .description(description)
                .tags(tags)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
    }
}
