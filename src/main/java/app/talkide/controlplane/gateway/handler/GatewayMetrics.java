package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The gateway's Prometheus metrics. Tags are bounded sets (endpoint, outcome, model family, status
 * code), never raw model ids or user input, and never anything secret. A call records about ten meters;
 * each is looked up here by a small key rather than through the registry, whose look-up builds, sorts
 * and hashes the tags every time.
 */
@Component
class GatewayMetrics {

    private final MeterRegistry registry;
    private final AtomicInteger openStreams = new AtomicInteger();
    private final Map<Key, Meter> meters = new ConcurrentHashMap<>();

    GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        registry.gauge("talkide.gateway.streams.open", openStreams);
    }

    /** Everything measured of a call, once it has ended. */
    void ended(GatewayCall call) {
        completed(call.endpoint(), call.outcomeTag(), call.elapsed());
        Duration firstByte = call.timeToFirstByte();
        if (firstByte != null) {
            firstByte(call.endpoint(), firstByte);
        }
        Duration before = call.beforeUpstream();
        Duration relay = call.toFirstByte();
        if (before != null && relay != null) {
            overhead(call.endpoint(), "before_upstream", before);
            overhead(call.endpoint(), "relay", relay);
            Duration arrival = call.arrival();
            if (arrival != null) {
                overhead(call.endpoint(), "arrival", arrival);
            }
            Duration budget = call.budget();
            if (budget != null) {
                overhead(call.endpoint(), "budget", budget);
            }
        }
    }

    /** Whole call, from the request's arrival to its last byte. */
    private void completed(String endpoint, String outcome, Duration duration) {
        timer("talkide.gateway.duration", "Gateway call duration", "endpoint", endpoint, "outcome", outcome)
                .record(duration);
    }

    /** Arrival to the first response byte sent to the worker. */
    private void firstByte(String endpoint, Duration timeToFirstByte) {
        timer("talkide.gateway.first.byte", "Time to first byte", "endpoint", endpoint, null, null)
                .record(timeToFirstByte);
    }

    /**
     * Time the gateway itself spent before the first byte, by phase: {@code arrival} (from the request's
     * headers to the router: servlet container, firewall, token check), {@code before_upstream}
     * (from the router to the upstream call: body, parsing, budget), {@code budget} (the reservation
     * alone, a part of {@code before_upstream}) and {@code relay} (from the upstream's headers to our first
     * byte out).
     */
    private void overhead(String endpoint, String phase, Duration added) {
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
        String code = Integer.toString(status);
        counter("talkide.gateway.upstream.responses", "status", code, null, null)
                .increment();
    }

    void usage(String family, TokenCounts tokens, long costMicros) {
        count(family, "input", tokens.input());
        count(family, "cache_write_5m", tokens.cacheWrite5m());
        count(family, "cache_write_1h", tokens.cacheWrite1h());
        count(family, "cache_read", tokens.cacheRead());
        count(family, "output", tokens.output());
        counter("talkide.gateway.cost.micros", "family", family, null, null).increment(costMicros);
    }

    void streamOpened() {
        openStreams.incrementAndGet();
    }

    void streamClosed() {
        openStreams.decrementAndGet();
    }

    private void count(String family, String kind, long tokens) {
        if (tokens > 0) {
            counter("talkide.gateway.tokens", "family", family, "kind", kind).increment(tokens);
        }
    }

    private Timer timer(
            String name, String description, String tag, String value, @Nullable String tag2, @Nullable String value2) {
        return (Timer) meters.computeIfAbsent(
                new Key(name, value, value2),
                key -> Timer.builder(name)
                        .description(description)
                        .tags(tags(tag, value, tag2, value2))
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofNanos(100_000))
                        .maximumExpectedValue(Duration.ofMinutes(10))
                        .register(registry));
    }

    private Counter counter(String name, String tag, String value, @Nullable String tag2, @Nullable String value2) {
        return (Counter) meters.computeIfAbsent(
                new Key(name, value, value2), key -> registry.counter(name, tags(tag, value, tag2, value2)));
    }

    private static Tags tags(String tag, String value, @Nullable String tag2, @Nullable String value2) {
        return tag2 == null || value2 == null ? Tags.of(tag, value) : Tags.of(tag, value, tag2, value2);
    }

    /** A meter's name and tag values: each name has fixed tag keys, so the values tell its meters apart. */
    private record Key(String name, String value, @Nullable String value2) {}
}
