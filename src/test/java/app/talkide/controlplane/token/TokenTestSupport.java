package app.talkide.controlplane.token;

import java.time.Duration;
import java.util.Base64;
import java.util.List;

/** Token settings and keys for tests that build the token classes by hand. */
public final class TokenTestSupport {

    public static final String KEY_1 = Base64.getEncoder().encodeToString(bytes(32, 1));
    public static final String KEY_2 = Base64.getEncoder().encodeToString(bytes(32, 2));

    private TokenTestSupport() {}

    public static TokenProperties properties(List<String> masterKeys, String activeKid) {
        return new TokenProperties(
                "talkide-control-plane",
                "talkide-control-plane",
                Duration.ofSeconds(120),
                Duration.ofSeconds(60),
                Duration.ofSeconds(30),
                Duration.ofDays(90),
                Duration.ofMinutes(15),
                Duration.ofSeconds(5),
                new TokenProperties.Mint(20, 40),
                new TokenProperties.Keys(masterKeys, activeKid));
    }

    public static TokenProperties properties() {
        return properties(List.of("k1:" + KEY_1, "k2:" + KEY_2), "k1");
    }

    private static byte[] bytes(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seed * 31 + i);
        }
        return bytes;
    }
}
