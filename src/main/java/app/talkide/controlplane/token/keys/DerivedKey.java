package app.talkide.controlplane.token.keys;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

/**
 * A derived HS256 key and the kid of the master key it came from. The signer and verifier are built
 * once with the key (both are thread-safe), because every token check would otherwise rebuild them.
 */
public final class DerivedKey {

    private final String kid;
    private final byte[] secret;
    private final MACSigner signer;
    private final MACVerifier verifier;

    DerivedKey(String kid, byte[] secret) {
        this.kid = kid;
        this.secret = secret.clone();
        try {
            this.signer = new MACSigner(this.secret);
            this.verifier = new MACVerifier(this.secret);
        } catch (JOSEException e) {
            throw new IllegalStateException("a derived key is always 256 bits", e);
        }
    }

    public String kid() {
        return kid;
    }

    public byte[] secret() {
        return secret.clone();
    }

    /** The claims as a compact HS256 JWT of {@code type}, its header naming this key's kid. */
    public String sign(JOSEObjectType type, JWTClaimsSet claims) {
        JWSHeader header =
                new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(kid).type(type).build();
        SignedJWT jwt = new SignedJWT(header, claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("HS256 signing failed", e);
        }
        return jwt.serialize();
    }

    public MACVerifier verifier() {
        return verifier;
    }

    @Override
    public String toString() {
        return "DerivedKey[kid=" + kid + ", secret=<redacted>]";
    }
}
