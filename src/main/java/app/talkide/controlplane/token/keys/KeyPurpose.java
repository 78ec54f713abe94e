package app.talkide.controlplane.token.keys;

import java.nio.charset.StandardCharsets;

/**
 * What a derived key is for. Each purpose has its own HKDF salt, so a key for one purpose is useless for
 * another: a worker holding its command key cannot mint WorkerTokens.
 */
public enum KeyPurpose {
    /** Signs and verifies WorkerTokens; never leaves the control plane. */
    WORKER_TOKEN("talkide/worker-token/v1"),
    /** Signs the control plane's commands to a worker; handed to that worker to verify them. */
    COMMAND("talkide/command/v1");

    private final byte[] salt;

    KeyPurpose(String salt) {
        this.salt = salt.getBytes(StandardCharsets.UTF_8);
    }

    byte[] salt() {
        return salt.clone();
    }
}
