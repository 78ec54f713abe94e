package app.talkide.controlplane.gateway.pricing;

import app.talkide.controlplane.gateway.GatewayProperties;
import app.talkide.controlplane.gateway.GatewayProperties.Family;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;

/**
 * Finds the price of a model id by family: the most specific matching pattern wins, so
 * {@code claude-opus-4-1*} can be priced apart from {@code claude-opus-*}, and a new model id of a known
 * family is priced right on the day it appears. An id of no known family is priced as the most expensive
 * family: a mistake then costs the user, not the operator, and shows in the usage records as
 * {@code unknown}.
 */
@Component
public class PriceList {

    public static final String UNKNOWN = "unknown";

    /**
     * List prices, per million tokens: Opus 4.5+ $5 / $25, but Opus 4, 4.1 and 3 $15 / $75 (their longer
     * patterns win over {@code claude-opus-*}), Sonnet 4.x $3 / $15, Haiku 4.5 $1 / $5.
     */
    static final Map<String, Family> BUILT_IN = Map.of(
            "opus",
            new Family(List.of("claude-opus-*"), 5_000_000, 25_000_000),
            "opus-legacy",
            new Family(
                    List.of("claude-opus-4-0*", "claude-opus-4-1*", "claude-opus-4-2025*", "claude-3-opus-*"),
                    15_000_000,
                    75_000_000),
            "sonnet",
            new Family(List.of("claude-sonnet-*"), 3_000_000, 15_000_000),
            "haiku",
            new Family(List.of("claude-haiku-*"), 1_000_000, 5_000_000));

    private final List<Rule> rules;
    private final ModelPrice mostExpensive;

    public PriceList(GatewayProperties properties) {
        GatewayProperties.Pricing pricing = properties.pricing();
        // Configured first: the sort below is stable, so on a tie in specificity the operator's pattern wins.
        Map<String, Family> families = new LinkedHashMap<>(pricing.families());
        BUILT_IN.forEach(families::putIfAbsent);
        List<Rule> rules = new ArrayList<>();
        families.forEach((name, family) -> {
            ModelPrice price = new ModelPrice(
                    name,
                    family.inputPerMillion(),
                    family.outputPerMillion(),
                    percent(family.inputPerMillion(), pricing.cacheWrite5mPercent()),
                    percent(family.inputPerMillion(), pricing.cacheWrite1hPercent()),
                    percent(family.inputPerMillion(), pricing.cacheReadPercent()));
            family.models().forEach(pattern -> rules.add(new Rule(pattern, glob(pattern), price)));
        });
        rules.sort(Comparator.comparingInt(
                        (Rule rule) -> rule.pattern().replace("*", "").length())
                .reversed());
        this.rules = List.copyOf(rules);
        ModelPrice top = rules.stream()
                .map(Rule::price)
                .max(Comparator.comparingLong(ModelPrice::output).thenComparingLong(ModelPrice::input))
                .orElseThrow(() -> new IllegalStateException("no model family is priced"));
        this.mostExpensive = new ModelPrice(
                UNKNOWN, top.input(), top.output(), top.cacheWrite5m(), top.cacheWrite1h(), top.cacheRead());
    }

    public ModelPrice forModel(String model) {
        for (Rule rule : rules) {
            if (rule.regex().matcher(model).matches()) {
                return rule.price();
            }
        }
        return mostExpensive;
    }

    private static long percent(long price, int percent) {
        return Math.ceilDiv(price * percent, 100L);
    }

    private static Pattern glob(String pattern) {
        StringBuilder regex = new StringBuilder();
        String[] parts = pattern.split("\\*", -1);
        for (int i = 0; i < parts.length; i++) {
            regex.append(i > 0 ? ".*" : "").append(Pattern.quote(parts[i]));
        }
        return Pattern.compile(regex.toString());
    }

    private record Rule(String pattern, Pattern regex, ModelPrice price) {}
}
