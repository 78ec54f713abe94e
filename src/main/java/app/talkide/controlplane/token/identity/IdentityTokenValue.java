package app.talkide.controlplane.token.identity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** The opaque form of an identity token: {@code tkwi_} followed by 256 random bits in base64url. */
final class IdentityTokenValue {

    static final String PREFIX = "tkwi_";
    private static final int RANDOM_BYTES = 32;
    private static final Pattern SHAPE = Pattern.compile("tkwi_[A-Za-z0-9_-]{43}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private IdentityTokenValue() {}

    static String generate() {
        byte[] random = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(random);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** Cheap shape check, so garbage never costs a hash or a database look-up. */
    static boolean looksValid(String presented) {
        return presented.length() == PREFIX.length() + 43
                && SHAPE.matcher(presented).matches();
    }

    static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is unavailable", e);
        }
    }
}
