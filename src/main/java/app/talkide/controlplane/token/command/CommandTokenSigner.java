package app.talkide.controlplane.token.command;

import static app.talkide.controlplane.workercontract.CommandTokenFormat.*;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
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

/** Signs each call the control plane makes to a worker, binding it to method, path and body. */
@Component
public class CommandTokenSigner {

    private final DerivedKeys keys;
    private final TokenProperties properties;
    private final Clock clock;

    CommandTokenSigner(DerivedKeys keys, TokenProperties properties, Clock clock) {
        this.keys = keys;
        this.properties = properties;
        this.clock = clock;
    }

    /**
     * @param target the request path with its query string, exactly as the worker will receive it
     * @param body the exact request body bytes (empty for none)
     */
    public String sign(TenantEnvironmentId tenantEnvironment, String method, String target, byte[] body) {
        Instant now = clock.instant();
        DerivedKey key = keys.signing(KeyPurpose.COMMAND, tenantEnvironment);
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(properties.issuer())
                .audience(AUDIENCE)
                .claim(TENANT, tenantEnvironment.tenant())
                .claim(ENV, tenantEnvironment.env())
                .claim(METHOD, method)
                .claim(TARGET, target)
                .claim(BODY_HASH, bodyHash(body))
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(properties.commandTokenTtl())))
                .jwtID(UUID.randomUUID().toString())
                .build();
        return key.sign(TYPE, claims);
    }
}
