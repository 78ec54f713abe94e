package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.UsageRecord;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line per gateway call, when it has ended: outcome, model, upstream status, durations, tokens
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

    private static @Nullable Long millis(@Nullable Duration duration) {
        return duration == null ? null : duration.toMillis();
    }
}
