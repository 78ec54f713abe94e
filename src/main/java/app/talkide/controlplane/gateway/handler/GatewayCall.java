package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.UsageRecord;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.gateway.pricing.ModelPrice;
import app.talkide.controlplane.token.WorkerPrincipal;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** One call through the gateway: who makes it, when it started, and the moments that make its latency. */
final class GatewayCall {

    private final String requestId = "gw_" + UUID.randomUUID().toString().replace("-", "");
    private final WorkerPrincipal worker;
    private final GatewayPaths path;
    private final Instant startedAt;
    private final long startNanos;
    private final long arrivedNanos;
    private long budgetNanos = -1;
    private long upstreamSentNanos;
    private long upstreamAnsweredNanos;
    private long firstByteNanos;
    private @Nullable Integer upstreamStatus;
    private String model = "";
    private @Nullable ModelPrice price;
    private long reservedOutput;
    private @Nullable CallOutcome outcome;
    private @Nullable UsageRecord recorded;

    /**
     * @param startNanos when the router got the call
     * @param arrivedNanos when the server had its headers, before the firewall and token check; 0 if
     *     unknown
     */
    GatewayCall(WorkerPrincipal worker, GatewayPaths path, Instant startedAt, long startNanos, long arrivedNanos) {
        this.worker = worker;
        this.path = path;
        this.startedAt = startedAt;
        this.startNanos = startNanos;
        this.arrivedNanos = arrivedNanos;
    }

    String requestId() {
        return requestId;
    }

    WorkerPrincipal worker() {
        return worker;
    }

    String endpoint() {
        return path.endpoint();
    }

    GatewayPaths path() {
        return path;
    }

    void priced(String model, ModelPrice price) {
        this.model = model;
        this.price = price;
    }

    ModelPrice price() {
        if (price == null) {
            throw new IllegalStateException("call not priced yet");
        }
        return price;
    }

    /** The output tokens reserved before the call is sent (one slice, or what the request needs up front). */
    void reservesOutput(long tokens) {
        reservedOutput = tokens;
    }

    long reservedOutput() {
        return reservedOutput;
    }

    @Nullable
    ModelPrice priceIfKnown() {
        return price;
    }

    /** Adds the time a budget step took (admission, then the call's estimate). */
    void budgetChecked(long tookNanos) {
        budgetNanos = Math.max(budgetNanos, 0) + tookNanos;
    }

    void upstreamSent() {
        upstreamSentNanos = System.nanoTime();
    }

    void upstreamAnswered(int status) {
        upstreamAnsweredNanos = System.nanoTime();
        upstreamStatus = status;
    }

    void firstByteSent() {
        if (firstByteNanos == 0) {
            firstByteNanos = System.nanoTime();
        }
    }

    @Nullable
    Duration timeToFirstByte() {
        return firstByteNanos == 0 ? null : Duration.ofNanos(firstByteNanos - startNanos);
    }

    /** From the request's arrival to the upstream call (token check, body, budget); null if never called. */
    @Nullable
    Duration beforeUpstream() {
        return upstreamSentNanos == 0 ? null : Duration.ofNanos(upstreamSentNanos - startNanos);
    }

    /** From the request's headers to the router (the servlet container, firewall, token check). */
    @Nullable
    Duration arrival() {
        return arrivedNanos == 0 || arrivedNanos > startNanos ? null : Duration.ofNanos(startNanos - arrivedNanos);
    }

    /** The budget reservation (or denial), a part of {@link #beforeUpstream()}. */
    @Nullable
    Duration budget() {
        return budgetNanos < 0 ? null : Duration.ofNanos(budgetNanos);
    }

    /** From the upstream's response headers to our first byte out (includes waiting for its first event). */
    @Nullable
    Duration toFirstByte() {
        return upstreamAnsweredNanos == 0 || firstByteNanos == 0
                ? null
                : Duration.ofNanos(firstByteNanos - upstreamAnsweredNanos);
    }

    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** How the call ended, or "rejected" for one the gateway refused before pricing it (bad body, too large). */
    String outcomeTag() {
        return outcome == null ? "rejected" : outcome.code();
    }

    UsageRecord record(TokenCounts tokens, long costMicros, CallOutcome outcome) {
        this.outcome = outcome;
        recorded = new UsageRecord(
                requestId,
                worker.tenantEnvironment().tenant(),
                worker.tenantEnvironment().env(),
                worker.conversationId(),
                worker.userId(),
                path.endpoint(),
                model,
                price == null ? "none" : price.family(),
                tokens,
                costMicros,
                outcome,
                upstreamStatus,
                startedAt,
                elapsed(),
                timeToFirstByte());
        return recorded;
    }

    /** What the call used and cost, once it is known; null for a call refused before pricing. */
    @Nullable
    UsageRecord recorded() {
        return recorded;
    }

    String model() {
        return model;
    }

    @Nullable
    Integer upstreamStatus() {
        return upstreamStatus;
    }
}
