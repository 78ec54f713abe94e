package app.talkide.controlplane.bench;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.KeyPurpose;
import app.talkide.controlplane.token.keys.TestKeys;
import app.talkide.controlplane.token.worker.IssuedWorkerToken;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import app.talkide.controlplane.token.worker.WorkerTokenRejected;
import app.talkide.controlplane.token.worker.WorkerTokenVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * WorkerToken mint (sign) and verify on one thread, against the floor any HS256 token pays: one
 * HMAC-SHA256 over a signing input of the same size. Sample mode, so JMH prints the median.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx256m"})
@Threads(1)
public class WorkerTokenBenchmark {

    private WorkerTokenIssuer issuer;
    private WorkerTokenVerifier verifier;
    private ConversationScope scope;
    private String token;
    private Mac hmac;
    private byte[] signingInput;

    @Setup
    public void setUp() throws Exception {
        // A fixed clock: the token stays valid however long the run takes.
        MutableClock clock = new MutableClock(Instant.now());
        TokenProperties properties = TokenTestSupport.properties();
        DerivedKeys keys = TestKeys.derivedKeys(properties);
        issuer = new WorkerTokenIssuer(keys, properties, clock);
        verifier = new WorkerTokenVerifier(keys, tenantEnvironment -> true, properties, clock);
        scope = new ConversationScope(UUID.randomUUID(), TenantEnvironmentId.of("acme", "dev"), "alice@example.com");
        token = issuer.issue(scope).token();
        hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(
                keys.signing(KeyPurpose.WORKER_TOKEN, scope.tenantEnvironment()).secret(), "HmacSHA256"));
        signingInput = token.substring(0, token.lastIndexOf('.')).getBytes(StandardCharsets.US_ASCII);
    }

    @Benchmark
    public byte[] baselineHmacOfSameSize() {
        return hmac.doFinal(signingInput);
    }

    @Benchmark
    public IssuedWorkerToken mint() {
        return issuer.issue(scope);
    }

    @Benchmark
    public WorkerPrincipal verify() throws WorkerTokenRejected {
        return verifier.verify(token);
    }
}
