package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.UsageRecord;
import app.talkide.controlplane.observability.Traces;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line per gateway call (and the same facts as tags on its span), when it has ended: outcome, model, upstream status, durations, tokens
 * and cost. Who made it (tenant, env, conversation, user) comes from the log context the WorkerToken
 * filter set; the request's body and the tokens that authorised it never go into the line.
 */
final class GatewayCallLog {

    private static final Logger log = LoggerFactory.getLogger(GatewayCallLog.class);

    private GatewayCallLog() {}

    static void ended(GatewayCall call) {
        if (!log.isInfoEnabled()) {
            return;
        }
        UsageRecord usage = call.recorded();
        UsageRecord.TokenCounts tokens = usage == null ? UsageRecord.TokenCounts.NONE : usage.tokens();
        log.atInfo()
                .setMessage("Gateway call {} {} {}: {}")
                .addArgument(call.requestId())
                .addArgument(call.endpoint())
                .addArgument(call.model())
                .addArgument(call.outcomeTag())
                .addKeyValue("requestId", call.requestId())
                .addKeyValue("endpoint", call.endpoint())
                .addKeyValue("model", call.model())
                .addKeyValue("outcome", call.outcomeTag())
                .addKeyValue("upstreamStatus", call.upstreamStatus())
                .addKeyValue("durationMs", call.elapsed().toMillis())
                .addKeyValue("firstByteMs", millis(call.timeToFirstByte()))
                .addKeyValue("beforeUpstreamMs", millis(call.beforeUpstream()))
                .addKeyValue("inputTokens", tokens.input())
                .addKeyValue("outputTokens", tokens.output())
                .addKeyValue("cacheReadTokens", tokens.cacheRead())
                .addKeyValue("costMicros", usage == null ? 0 : usage.costMicros())
                .log();
    }

    /**
     * The same facts on the call's server span (gen_ai semantic-convention names where there is one), so a
     * trace shows what the call was without looking up its log line.
     */
    static void tagSpan(Traces traces, GatewayCall call) {
        if (!traces.recording()) {
            return; // an unsampled span exports nothing: spare the look-ups and strings
        }
        UsageRecord usage = call.recorded();
        traces.tagCurrent("talkide.gateway.request_id", call.requestId());
        traces.tagCurrent("gen_ai.request.model", call.model());
        traces.tagCurrent("talkide.gateway.outcome", call.outcomeTag());
        Integer status = call.upstreamStatus();
        if (status != null) {
            traces.tagCurrent("talkide.gateway.upstream_status", status.toString());
        }
        if (usage != null) {
            traces.tagCurrent(
                    "gen_ai.usage.input_tokens", Long.toString(usage.tokens().input()));
            traces.tagCurrent(
                    "gen_ai.usage.output_tokens", Long.toString(usage.tokens().output()));
            traces.tagCurrent("talkide.gateway.cost_micros", Long.toString(usage.costMicros()));
        }
    }

    private static @Nullable Long millis(@Nullable Duration duration) {
        return duration == null ? null : duration.toMillis();
    }
}
