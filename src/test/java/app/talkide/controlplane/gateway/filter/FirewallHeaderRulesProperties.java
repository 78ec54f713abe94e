package app.talkide.controlplane.gateway.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * {@link FirewallHeaderRules} accept exactly what the live {@code StrictHttpFirewall} of the Spring
 * Security on the classpath accepts (its defaults, asked through a firewalled request), so an upgrade
 * that changes the firewall's rules fails here instead of drifting silently.
 */
class FirewallHeaderRulesProperties {

    private static final StrictHttpFirewall LIVE = new StrictHttpFirewall();

    @Property(tries = 5000)
    void sameAnswerAsTheFirewallsPatterns(@ForAll("headerLike") String text) {
        assertThat(FirewallHeaderRules.NAMES.test(text)).as(text).isEqualTo(liveAcceptsName(text));
        assertThat(FirewallHeaderRules.VALUES.test(text)).as(text).isEqualTo(liveAcceptsValue(text));
    }

    private static boolean liveAcceptsName(String name) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/v1/messages");
        request.addHeader(name, "value");
        try {
            Collections.list(LIVE.getFirewalledRequest(request).getHeaderNames());
            return true;
        } catch (RequestRejectedException refused) {
            return false;
        }
    }

    private static boolean liveAcceptsValue(String value) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/v1/messages");
        request.addHeader("x-test", value);
        try {
            LIVE.getFirewalledRequest(request).getHeader("x-test");
            return true;
        } catch (RequestRejectedException refused) {
            return false;
        }
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
