package app.talkide.controlplane.token.worker;

import static app.talkide.controlplane.token.worker.WorkerTokenFormat.*;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.keys.DerivedKey;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.KeyPurpose;
import com.nimbusds.jwt.JWTClaimsSet;
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
        // JWT times have whole-second precision; report what the token actually says.
        return new IssuedWorkerToken(key.sign(TYPE, claims), Instant.ofEpochSecond(expiresAt.getEpochSecond()));
    }
}
