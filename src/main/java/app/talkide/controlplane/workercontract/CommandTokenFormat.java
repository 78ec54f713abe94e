package app.talkide.controlplane.workercontract;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.util.Base64URL;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The wire constants of a command token, shared by signer and verifier. */
public final class CommandTokenFormat {

    /** The header a command token travels in, on calls from the control plane to a worker. */
    public static final String HEADER = "X-Worker-Token";

    public static final String AUDIENCE = "talkide-worker";
    public static final JOSEObjectType TYPE = new JOSEObjectType("cmd+jwt");
    public static final String TENANT = "tid";
    public static final String ENV = "eid";
    public static final String METHOD = "htm";
    public static final String TARGET = "htu";
    public static final String BODY_HASH = "bsh";
    public static final int MAX_LENGTH = 4096;

    private CommandTokenFormat() {}

    /** base64url(SHA-256(body)); an absent body hashes as the empty byte string. */
    public static String bodyHash(byte[] body) {
        try {
            return Base64URL.encode(MessageDigest.getInstance("SHA-256").digest(body))
                    .toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is unavailable", e);
        }
    }
}
