package app.talkide.controlplane.token.keys;

import app.talkide.controlplane.token.TokenProperties;

/** Builds the key classes (package-private constructors) for tests in other token packages. */
public final class TestKeys {

    private TestKeys() {}

    public static DerivedKeys derivedKeys(TokenProperties properties) {
        return new DerivedKeys(MasterKeyRing.parse(
                properties.keys().masterKeys(), properties.keys().activeKid()));
    }
}
