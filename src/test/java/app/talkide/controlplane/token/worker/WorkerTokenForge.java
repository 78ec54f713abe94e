package app.talkide.controlplane.token.worker;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;
import java.util.function.UnaryOperator;

/** Builds WorkerTokens the way an attacker (or a buggy peer) might: any header, any claims, any key. */
final class WorkerTokenForge {

    private WorkerTokenForge() {}

    static JWTClaimsSet.Builder validClaims(String tenant, String env, UUID conversation, String user, Instant now) {
        return new JWTClaimsSet.Builder()
                .issuer("talkide-control-plane")
                .audience("talkide-control-plane")
                .subject("worker:" + tenant + "/" + env)
                .claim("tid", tenant)
                .claim("eid", env)
                .claim("cid", conversation.toString())
                .claim("uid", user)
                .issueTime(Date.from(now))
                .notBeforeTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(120)))
                .jwtID(UUID.randomUUID().toString());
    }

    static String sign(byte[] key, String kid, JWTClaimsSet claims) {
        return sign(key, header -> header.keyID(kid), claims);
    }

    static String sign(byte[] key, UnaryOperator<JWSHeader.Builder> header, JWTClaimsSet claims) {
        try {
            JWSHeader built = header.apply(new JWSHeader.Builder(JWSAlgorithm.HS256).type(new JOSEObjectType("wt+jwt")))
                    .build();
            SignedJWT jwt = new SignedJWT(built, claims);
            jwt.sign(new MACSigner(key));
            return jwt.serialize();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
