package app.talkide.controlplane.token.keys;

import java.util.Base64;
import java.util.regex.Pattern;

/** One master key: a kid and at least 256 bits of secret. */
record MasterKey(String kid, byte[] secret) {

    private static final Pattern KID = Pattern.compile("[A-Za-z0-9._-]{1,32}");
    static final int MIN_BYTES = 32;

    MasterKey {
        if (!KID.matcher(kid).matches()) {
            throw new InvalidMasterKeys("kid '" + kid + "' must be 1-32 characters of A-Z a-z 0-9 . _ -");
        }
        if (secret.length < MIN_BYTES) {
            throw new InvalidMasterKeys("master key '" + kid + "' has " + secret.length + " bytes; at least "
                    + MIN_BYTES + " are required");
        }
        secret = secret.clone();
    }

    /** Parses {@code kid:base64}; accepts standard and URL-safe base64, with or without padding. */
    static MasterKey parse(String entry) {
        int colon = entry.indexOf(':');
        if (colon <= 0 || colon == entry.length() - 1) {
            throw new InvalidMasterKeys("a master key entry must look like kid:base64secret");
        }
        String kid = entry.substring(0, colon).trim();
        String encoded = entry.substring(colon + 1).trim().replace('+', '-').replace('/', '_');
        try {
            return new MasterKey(kid, Base64.getUrlDecoder().decode(encoded.replace("=", "")));
        } catch (IllegalArgumentException e) {
            throw new InvalidMasterKeys("master key '" + kid + "' is not valid base64");
        }
    }

    @Override
    public byte[] secret() {
        return secret.clone();
    }

    @Override
    public String toString() {
        return "MasterKey[kid=" + kid + ", secret=<redacted>]";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MasterKey key && key.kid.equals(kid);
    }

    @Override
    public int hashCode() {
        return kid.hashCode();
    }
}
