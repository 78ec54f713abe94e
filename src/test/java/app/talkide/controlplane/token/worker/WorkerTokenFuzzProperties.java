package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.TestKeys;
import java.time.Instant;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.assertj.core.api.Assertions;

/**
 * Hostile input for the WorkerToken verifier: random text, random JWS-shaped text, and valid tokens
 * with a character changed, inserted or removed. The verifier must always answer with a clean
 * rejection: never accept, never throw anything else.
 */
class WorkerTokenFuzzProperties {

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final TokenProperties properties = TokenTestSupport.properties();
    final DerivedKeys keys = TestKeys.derivedKeys(properties);
    final WorkerTokenVerifier verifier = new WorkerTokenVerifier(keys, tenantEnvironment -> true, properties, clock);
    final String valid = new WorkerTokenIssuer(keys, properties, clock)
            .issue(new ConversationScope(UUID.randomUUID(), TenantEnvironmentId.of("acme", "dev"), "alice"))
            .token();

    @Property(tries = 2000)
    void randomTextIsRejected(@ForAll String text) {
        assertCleanRejection(text);
    }

    @Property(tries = 2000)
    void randomJwsShapedTextIsRejected(@ForAll("jwsShaped") String text) {
        assertCleanRejection(text);
    }

    @Property(tries = 3000)
    void mutatedValidTokenIsRejected(
            @ForAll @IntRange(min = 0, max = 10_000) int position,
            @ForAll("tokenChars") char replacement,
            @ForAll("mutations") String mutation) {
        int at = position % valid.length();
        String mutated = switch (mutation) {
            case "replace" -> valid.substring(0, at) + replacement + valid.substring(at + 1);
            case "insert" -> valid.substring(0, at) + replacement + valid.substring(at);
            default -> valid.substring(0, at) + valid.substring(at + 1);
        };
        if (mutated.equals(valid)) {
            return;
        }
        assertCleanRejection(mutated);
    }

    @Provide
    Arbitrary<String> jwsShaped() {
        Arbitrary<String> segment = Arbitraries.strings()
                .withChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/")
                .ofMaxLength(200);
        return Arbitraries.oneOf(
                segment.list().ofMinSize(1).ofMaxSize(6).map(parts -> String.join(".", parts)),
                Arbitraries.of(valid.split("\\.")[0])
                        .flatMap(header -> segment.map(rest -> header + "." + rest + "." + rest)));
    }

    @Provide
    Arbitrary<Character> tokenChars() {
        return Arbitraries.chars()
                .with("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=%\u0000\u00e9");
    }

    @Provide
    Arbitrary<String> mutations() {
        return Arbitraries.of("replace", "insert", "delete");
    }

    private void assertCleanRejection(String token) {
        try {
            verifier.verify(token);
            Assertions.fail("accepted a token it must refuse: " + token);
        } catch (WorkerTokenRejected expected) {
            // the only acceptable outcome
        }
    }
}
