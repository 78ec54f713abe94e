package app.talkide.controlplane.token.keys;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HKDF-SHA256 (RFC 5869). The JDK's own KDF API needs Java 24+ and this project targets 21, so the
 * two HMAC steps are spelled out here and checked against the RFC's test vectors.
 */
final class Hkdf {

    private static final String HMAC = "HmacSHA256";
    private static final int HASH_LENGTH = 32;

    private Hkdf() {}

    static byte[] derive(byte[] inputKey, byte[] salt, byte[] info, int length) {
        if (length <= 0 || length > 255 * HASH_LENGTH) {
            throw new IllegalArgumentException("HKDF output length out of range: " + length);
        }
        try {
            byte[] pseudoRandomKey = hmac(salt.length == 0 ? new byte[HASH_LENGTH] : salt, inputKey);
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(pseudoRandomKey, HMAC));
            byte[] output = new byte[length];
            byte[] previous = new byte[0];
            int written = 0;
            for (int counter = 1; written < length; counter++) {
                mac.update(previous);
                mac.update(info);
                mac.update((byte) counter);
                previous = mac.doFinal();
                int chunk = Math.min(previous.length, length - written);
                System.arraycopy(previous, 0, output, written, chunk);
                written += chunk;
            }
            return output;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    private static byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance(HMAC);
        mac.init(new SecretKeySpec(key, HMAC));
        return mac.doFinal(data);
    }
}
