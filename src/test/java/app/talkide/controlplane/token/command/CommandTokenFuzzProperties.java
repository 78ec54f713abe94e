package app.talkide.controlplane.token.command;

import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.TestKeys;
import app.talkide.controlplane.workercontract.CommandTokenRejected;
import app.talkide.controlplane.workercontract.CommandTokenVerifier;
import app.talkide.controlplane.workercontract.ReplayCache;
import java.time.Duration;
import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.assertj.core.api.Assertions;

/** Random and mutated command tokens, bodies and paths: the worker must refuse cleanly, every time. */
class CommandTokenFuzzProperties {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final TokenProperties properties = TokenTestSupport.properties();
    final DerivedKeys keys = TestKeys.derivedKeys(properties);
    final CommandTokenSigner signer = new CommandTokenSigner(keys, properties, clock);
    final CommandTokenVerifier worker = new CommandTokenVerifier(
            new CommandKeys(keys).forWorker(ACME), ACME, clock, Duration.ofSeconds(30), new ReplayCache());

    @Property(tries = 2000)
    void randomTokensAreRejected(@ForAll String token, @ForAll String path, @ForAll byte[] body) {
        expectRejection(token, path, body);
    }

    @Property(tries = 2000)
    void mutatedTokensAreRejected(@ForAll @IntRange(min = 0, max = 1000) int position, @ForAll char replacement) {
        String valid = signer.sign(ACME, "POST", "/sessions", new byte[0]);
        int at = position % valid.length();
        String mutated = valid.substring(0, at) + replacement + valid.substring(at + 1);
        if (mutated.equals(valid)) {
            return;
        }
        expectRejection(mutated, "/sessions", new byte[0]);
    }

    @Property(tries = 1000)
    void validTokenForOtherBodyIsRejected(@ForAll byte[] body) {
        String token = signer.sign(ACME, "POST", "/sessions", new byte[] {1, 2, 3});
        if (java.util.Arrays.equals(body, new byte[] {1, 2, 3})) {
            return;
        }
        expectRejection(token, "/sessions", body);
    }

    private void expectRejection(String token, String path, byte[] body) {
        try {
            worker.verify(token, "POST", path, body);
            Assertions.fail("accepted a command it must refuse");
        } catch (CommandTokenRejected expected) {
            // the only acceptable outcome
        }
    }
}
