package app.talkide.controlplane.token.keys;

/** A derived signing key and the kid of the master key it came from. */
public record DerivedKey(String kid, byte[] secret) {

    @Override
    public byte[] secret() {
        return secret.clone();
    }

    @Override
    public String toString() {
        return "DerivedKey[kid=" + kid + ", secret=<redacted>]";
    }
}
