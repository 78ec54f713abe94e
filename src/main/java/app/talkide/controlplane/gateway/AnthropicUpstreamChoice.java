package app.talkide.controlplane.gateway;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * Which {@link AnthropicUpstream} is active: the built-in simulator in local mode without an API key,
 * the configured upstream otherwise. Conditions rather than SpEL, so the key's value never becomes
 * part of an expression (a quote in it would break parsing and could echo it in the error).
 */
public final class AnthropicUpstreamChoice {

    private AnthropicUpstreamChoice() {}

    static boolean simulated(Environment environment) {
        boolean local = "local".equalsIgnoreCase(environment.getProperty("talkide.mode", "local"));
        return local && !StringUtils.hasText(environment.getProperty("talkide.gateway.api-key"));
    }

    /** Local mode and no API key: the simulator answers. */
    public static final class Simulator extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return simulated(context.getEnvironment())
                    ? ConditionOutcome.match("local mode without an Anthropic API key")
                    : ConditionOutcome.noMatch("production mode, or an Anthropic API key is configured");
        }
    }

    /** Production, or any mode with an API key: the configured upstream answers. */
    public static final class Configured extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return simulated(context.getEnvironment())
                    ? ConditionOutcome.noMatch("local mode without an Anthropic API key uses the simulator")
                    : ConditionOutcome.match("production mode, or an Anthropic API key is configured");
        }
    }
}
