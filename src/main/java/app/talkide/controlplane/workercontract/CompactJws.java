package app.talkide.controlplane.workercontract;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.Base64;
import java.util.Optional;

/**
 * A JWS in compact serialization, accepted only in its one canonical form (RFC 7515 §7.1, signature
 * re-encoding to the exact text), so one signed token cannot travel as many strings (docs/security.md).
 * Base64url decoding is the JDK's, for speed; Nimbus does the rest.
 */
public final class CompactJws {

    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final JWSHeader header;
    private final String payload;
    private final byte[] signingInput;
    private final Base64URL signature;

    private CompactJws(JWSHeader header, String payload, byte[] signingInput, Base64URL signature) {
        this.header = header;
        this.payload = payload;
        this.signingInput = signingInput;
        this.signature = signature;
    }

    /** The token parsed, or empty when it is not a canonical compact JWS with a parseable header. */
    public static Optional<CompactJws> parseStrictly(String token) {
        int firstDot = -1;
        int secondDot = -1;
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c == '.') {
                if (firstDot < 0) {
                    firstDot = i;
                } else if (secondDot < 0) {
                    secondDot = i;
                } else {
                    return Optional.empty();
                }
            } else if (!isBase64Url(c)) {
                return Optional.empty();
            }
        }
        if (secondDot < 0 || firstDot == 0 || secondDot == token.length() - 1) {
            return Optional.empty();
        }
        try {
            String headerSegment = token.substring(0, firstDot);
            String signatureSegment = token.substring(secondDot + 1);
            if (!ENCODER.encodeToString(DECODER.decode(signatureSegment)).equals(signatureSegment)) {
                return Optional.empty();
            }
            JWSHeader header = JWSHeader.parse(decodeToString(headerSegment), new Base64URL(headerSegment));
            return Optional.of(new CompactJws(
                    header,
                    token.substring(firstDot + 1, secondDot),
                    token.substring(0, secondDot).getBytes(StandardCharsets.US_ASCII),
                    new Base64URL(signatureSegment)));
        } catch (ParseException | RuntimeException e) {
            return Optional.empty();
        }
    }

    public JWSHeader header() {
        return header;
    }

    /** Whether the signature over the header and payload, exactly as received, is the verifier's. */
    public boolean verify(JWSVerifier verifier) throws JOSEException {
        return verifier.verify(header, signingInput, signature);
    }

    /** The payload as a claims set; believe it only after {@link #verify}. */
    public JWTClaimsSet claims() throws ParseException {
        return JWTClaimsSet.parse(decodeToString(payload));
    }

    private static String decodeToString(String segment) {
        return new String(DECODER.decode(segment), StandardCharsets.UTF_8);
    }

    private static boolean isBase64Url(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }
}
