package app.talkide.controlplane.token.command;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.TestKeys;
import app.talkide.controlplane.workercontract.CommandKeySet;
import app.talkide.controlplane.workercontract.CommandTokenRejected;
import app.talkide.controlplane.workercontract.CommandTokenVerifier;
import app.talkide.controlplane.workercontract.ReplayCache;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Cross-language test vectors for the command token: tokens signed by this signer, with the outcome the
 * Java verifier gives each, checked in at {@code worker/test/vectors/command-tokens.json}; the Node worker's
 * tests verify the same tokens and must reach the same outcomes. This test proves the file still matches
 * the Java side; {@code -Dtalkide.writeVectors=true} writes it afresh.
 */
class CommandTokenVectorsTest {

    static final Path FILE = Path.of("worker/test/vectors/command-tokens.json");
    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");
    static final Instant SIGNED_AT = Instant.parse("2026-12-01T10:00:00Z");
    static final String SESSION = "/sessions/0b6f7a54-3c1e-4c4e-9d43-1f7a2b6c9d10";

    record Vector(
            String name,
            String method,
            String target,
            String body,
            String verifyMethod,
            String verifyTarget,
            String verifyBody,
            long verifyAtEpochSecond,
            String tenant,
            String expect) {}

    @Test
    void theCheckedInVectorsGiveTheJavaVerifiersOutcomes() throws IOException {
        if (Boolean.getBoolean("talkide.writeVectors") || !Files.exists(FILE)) {
            write();
        }
        JsonNode file = TestHttp.JSON.readTree(Files.readString(FILE));
        CommandKeySet keys = CommandKeySet.parse(file.get("commandKey").asString());
        ReplayCache replays = new ReplayCache();
        for (JsonNode vector : file.get("vectors")) {
            MutableClock clock = new MutableClock(
                    Instant.ofEpochSecond(vector.get("verifyAt").asLong()));
            TenantEnvironmentId tenantEnvironment = TenantEnvironmentId.of(
                    vector.get("tenant").asString(), vector.get("env").asString());
            CommandTokenVerifier verifier =
                    new CommandTokenVerifier(keys, tenantEnvironment, clock, Duration.ofSeconds(30), replays);
            String outcome;
            try {
                verifier.verify(
                        vector.get("token").asString(),
                        vector.get("method").asString(),
                        vector.get("target").asString(),
                        Base64.getDecoder().decode(vector.get("bodyBase64").asString()));
                outcome = "ok";
            } catch (CommandTokenRejected rejected) {
                outcome = rejected.reason().name().toLowerCase(Locale.ROOT);
            }
            assertThat(outcome)
                    .as(vector.get("name").asString())
                    .isEqualTo(vector.get("expect").asString());
        }
    }

    /** Signs each case with the real signer and records the outcome the Java verifier gives it, in order. */
    private static void write() throws IOException {
        MutableClock clock = new MutableClock(SIGNED_AT);
        TokenProperties properties = TokenTestSupport.properties();
        DerivedKeys keys = TestKeys.derivedKeys(properties);
        CommandTokenSigner signer = new CommandTokenSigner(keys, properties, clock);
        String commandKey = new CommandKeys(keys).forWorker(ACME).format();
        long now = SIGNED_AT.getEpochSecond();
        String body = "{\"messageId\":\"m1\",\"text\":\"héllo \\u2603 ☃\"}";
        List<Vector> cases = new ArrayList<>();
        cases.add(new Vector(
                "valid message",
                "POST",
                SESSION + "/messages",
                body,
                "POST",
                SESSION + "/messages",
                body,
                now + 1,
                "acme",
                "ok"));
        cases.add(new Vector(
                "valid stream with query",
                "GET",
                SESSION + "/stream?since=1",
                "",
                "GET",
                SESSION + "/stream?since=1",
                "",
                now,
                "acme",
                "ok"));
        cases.add(new Vector(
                "valid delete, empty body", "DELETE", SESSION, "", "DELETE", SESSION, "", now, "acme", "ok"));
        cases.add(new Vector(
                "body changed",
                "POST",
                SESSION + "/messages",
                body,
                "POST",
                SESSION + "/messages",
                body.replace("m1", "m2"),
                now,
                "acme",
                "body_mismatch"));
        cases.add(new Vector(
                "query dropped",
                "GET",
                SESSION + "/stream?since=1",
                "",
                "GET",
                SESSION + "/stream",
                "",
                now,
                "acme",
                "path_mismatch"));
        cases.add(new Vector(
                "method changed",
                "POST",
                SESSION + "/interrupt",
                "",
                "DELETE",
                SESSION + "/interrupt",
                "",
                now,
                "acme",
                "method_mismatch"));
        cases.add(new Vector(
                "expired beyond skew",
                "POST",
                "/sessions",
                body,
                "POST",
                "/sessions",
                body,
                now + 60 + 30,
                "acme",
                "expired"));
        cases.add(new Vector(
                "expired within skew",
                "POST",
                "/sessions",
                body,
                "POST",
                "/sessions",
                body,
                now + 60 + 29,
                "acme",
                "ok"));
        cases.add(new Vector(
                "issued in the future",
                "POST",
                "/sessions",
                body,
                "POST",
                "/sessions",
                body,
                now - 31,
                "acme",
                "issued_in_future"));
        cases.add(new Vector(
                "another tenant's worker",
                "POST",
                "/sessions",
                body,
                "POST",
                "/sessions",
                body,
                now,
                "globex",
                "wrong_tenant_environment"));
        ArrayNode vectors = TestHttp.JSON.createArrayNode();
        for (Vector vector : cases) {
            clock.set(SIGNED_AT);
            String token = signer.sign(
                    ACME, vector.method(), vector.target(), vector.body().getBytes(StandardCharsets.UTF_8));
            vectors.add(vector(vector.name(), token, vector, vector.expect()));
            if (vector.name().equals("valid message")) {
                vectors.add(vector("replayed", token, vector, "replayed"));
                String[] parts = token.split("\\.");
                String tampered = parts[0] + "." + parts[1] + "." + flip(parts[2]);
                vectors.add(vector("signature tampered", tampered, vector, "bad_signature"));
            }
        }
        ObjectNode file = TestHttp.JSON
                .createObjectNode()
                .put(
                        "about",
                        "Command tokens signed by the Java CommandTokenSigner, verified in order with one replay cache,"
                                + " clock skew 30 s. Written by CommandTokenVectorsTest; checked by the Java and the Node verifier.")
                .put("commandKey", commandKey);
        file.set("vectors", vectors);
        Files.createDirectories(FILE.getParent());
        Files.writeString(FILE, TestHttp.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(file) + "\n");
    }

    private static ObjectNode vector(String name, String token, Vector vector, String expect) {
        return TestHttp.JSON
                .createObjectNode()
                .put("name", name)
                .put("token", token)
                .put("method", vector.verifyMethod())
                .put("target", vector.verifyTarget())
                .put(
                        "bodyBase64",
                        Base64.getEncoder().encodeToString(vector.verifyBody().getBytes(StandardCharsets.UTF_8)))
                .put("verifyAt", vector.verifyAtEpochSecond())
                .put("tenant", vector.tenant())
                .put("env", "dev")
                .put("expect", expect);
    }

    /** Changes the signature's first character, keeping it valid base64url. */
    private static String flip(String signature) {
        char first = signature.charAt(0);
        return (first == 'A' ? 'B' : 'A') + signature.substring(1);
    }
}
