package app.talkide.controlplane.token.jws;

import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.SignedJWT;
import java.text.ParseException;
import java.util.Optional;

/**
 * Parses a JWS only in its one canonical form: three unpadded base64url segments (RFC 7515 §7.1), with
 * a signature that re-encodes to exactly the text received. Nimbus alone tolerates padding and stray
 * bits in the signature segment, which would let one signed token travel as many different strings,
 * a way around anything keyed by the token text (a replay cache, a log search, a deny list).
 */
public final class CompactJws {

    private CompactJws() {}

    public static Optional<SignedJWT> parseStrictly(String token) {
        int dots = 0;
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c == '.') {
                dots++;
            } else if (!isBase64Url(c)) {
                return Optional.empty();
            }
        }
        if (dots != 2) {
            return Optional.empty();
        }
        String signature = token.substring(token.lastIndexOf('.') + 1);
        if (signature.isEmpty()
                || !Base64URL.encode(new Base64URL(signature).decode())
                        .toString()
                        .equals(signature)) {
            return Optional.empty();
        }
        try {
            return Optional.of(SignedJWT.parse(token));
        } catch (ParseException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static boolean isBase64Url(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }
}
