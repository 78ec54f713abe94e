package app.talkide.controlplane.token.keys;

/** The configured master keys cannot be used; the message says why and never contains key material. */
class InvalidMasterKeys extends IllegalStateException {

    InvalidMasterKeys(String message) {
        super(message);
    }
}
