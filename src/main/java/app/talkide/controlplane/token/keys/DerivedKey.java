package app.talkide.controlplane.token.keys;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;

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

    public MACSigner signer() {
        return signer;
    }

    public MACVerifier verifier() {
        return verifier;
    }

    @Override
    public String toString() {
        return "DerivedKey[kid=" + kid + ", secret=<redacted>]";
    }
}
