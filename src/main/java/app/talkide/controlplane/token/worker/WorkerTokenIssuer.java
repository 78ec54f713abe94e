package app.talkide.controlplane.token.worker;

import static app.talkide.controlplane.token.worker.WorkerTokenFormat.*;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.keys.DerivedKey;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.KeyPurpose;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Clock;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;
import org.springframework.stereotype.Component;

/** Signs WorkerTokens scoped to one conversation with the tenant-environment's derived key. */
@Component
public class WorkerTokenIssuer {

    private final DerivedKeys keys;
    private final TokenProperties properties;
    private final Clock clock;

    public WorkerTokenIssuer(DerivedKeys keys, TokenProperties properties, Clock clock) {
        this.keys = keys;
        this.properties = properties;
        this.clock = clock;
    }

    public IssuedWorkerToken issue(ConversationScope scope) {
        Instant now = clock.instant();
        Instant expiresAt = now.plus(properties.workerTokenTtl());
        DerivedKey key = keys.signing(KeyPurpose.WORKER_TOKEN, scope.tenantEnvironment());
        JWSHeader header = new JWSHeader.Builder(JWSAlgorithm.HS256)
                .keyID(key.kid())
                .type(TYPE)
                .build();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(properties.issuer())
                .audience(properties.audience())
                .subject(SUBJECT_PREFIX + scope.tenantEnvironment().path())
                .claim(TENANT, scope.tenantEnvironment().tenant())
                .claim(ENV, scope.tenantEnvironment().env())
                .claim(CONVERSATION, scope.conversationId().toString())
                .claim(USER, scope.ownerUserId())
                .issueTime(Date.from(now))
                .notBeforeTime(Date.from(now))
                .expirationTime(Date.from(expiresAt))
                .jwtID(UUID.randomUUID().toString())
                .build();
        SignedJWT jwt = new SignedJWT(header, claims);
        try {
            jwt.sign(key.signer());
        } catch (JOSEException e) {
            throw new IllegalStateException("HS256 signing failed", e);
        }
        // JWT times have whole-second precision; report what the token actually says.
        return new IssuedWorkerToken(jwt.serialize(), Instant.ofEpochSecond(expiresAt.getEpochSecond()));
    }
}
