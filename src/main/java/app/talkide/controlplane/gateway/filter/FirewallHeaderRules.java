package app.talkide.controlplane.gateway.filter;

import java.util.function.Predicate;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * The header rules of Spring Security's {@link StrictHttpFirewall}, unchanged, without its regular
 * expressions: a name must be assigned Unicode and no control character, a value the same except that a
 * tab may appear. The firewall matches every header the gateway reads against a pattern; that was 6 % of
 * the gateway's CPU. {@code FirewallHeaderRulesProperties} holds these to the live firewall of the Spring Security in use.
 */
final class FirewallHeaderRules {

    static final Predicate<String> NAMES = name -> assignedAndNotControl(name, false);
    static final Predicate<String> VALUES = value -> assignedAndNotControl(value, true);

    private FirewallHeaderRules() {}

    /** The firewall with these rules for header names and values, and its defaults for everything else. */
    static StrictHttpFirewall firewall() {
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowedHeaderNames(NAMES);
        firewall.setAllowedHeaderValues(VALUES);
        return firewall;
    }

    static boolean assignedAndNotControl(String text, boolean tabAllowed) {
        for (int i = 0; i < text.length(); ) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                i++; // printable ASCII, nearly every character of a header
                continue;
            }
            int codePoint = text.codePointAt(i);
            int type = Character.getType(codePoint);
            if (type == Character.UNASSIGNED || (type == Character.CONTROL && !(tabAllowed && codePoint == '\t'))) {
                return false;
            }
            i += Character.charCount(codePoint);
        }
        return true;
    }
}
