package app.talkide.controlplane.gateway.handler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link FirewallHeaderRules} accept exactly what {@code StrictHttpFirewall}'s own patterns accept. */
class FirewallHeaderRulesProperties {

    // The patterns as StrictHttpFirewall (spring-security-web 7.0) compiles them.
    private static final Pattern NAMES = Pattern.compile("[\\p{IsAssigned}&&[^\\p{IsControl}]]*");
    private static final Pattern VALUES = Pattern.compile("[\\p{IsAssigned}&&[[^\\p{IsControl}]||\\t]]*");

    @Property(tries = 5000)
    void sameAnswerAsTheFirewallsPatterns(@ForAll("headerLike") String text) {
        assertThat(FirewallHeaderRules.NAMES.test(text))
                .as(text)
                .isEqualTo(NAMES.matcher(text).matches());
        assertThat(FirewallHeaderRules.VALUES.test(text))
                .as(text)
                .isEqualTo(VALUES.matcher(text).matches());
    }

    @Example
    void theEdges() {
        for (String text : new String[] {
            "",
            "x-stainless-os",
            "a\tb",
            "a\u0000b",
            "\u007f",
            "\u0085",
            "\u00a0é€",
            "\ud83d\ude00",
            "\ud83d",
            "\ude00x",
            "\u0378",
            "\uffff",
            "\ufeff",
            "a\r\nb",
            "|"
        }) {
            sameAnswerAsTheFirewallsPatterns(text);
        }
    }

    @Provide
    Arbitrary<String> headerLike() {
        Arbitrary<Character> any = Arbitraries.chars().all();
        Arbitrary<Character> ascii = Arbitraries.chars().range('\u0000', '\u00ff');
        Arbitrary<Character> surrogates = Arbitraries.chars().range('\ud800', '\udfff');
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(5, ascii),
                        net.jqwik.api.Tuple.of(3, any),
                        net.jqwik.api.Tuple.of(1, surrogates))
                .list()
                .ofMaxSize(12)
                .map(chars -> {
                    StringBuilder text = new StringBuilder();
                    chars.forEach(text::append);
                    return text.toString();
                });
    }
}
