package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * Secret {@code talkide-worker-token}: the worker's identity token (for the mint endpoint) and its command
 * keys (to verify calls from the control plane). Written as {@code data}, as the API server stores it, so a
 * comparison with the live Secret needs no conversion. Never log the result.
 */
public final class WorkerSecretBuilder {

    public static Secret build(TenantEnvironmentId id, DesiredState desired, String identityToken, String commandKey) {
        return new SecretBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER_SECRET))
                .withType("Opaque")
                .withData(Map.of(
                        WorkerSecretKeys.IDENTITY_TOKEN, encode(identityToken),
                        WorkerSecretKeys.COMMAND_KEY, encode(commandKey)))
                .build();
    }

    /** A value of the live Secret, or {@code null} when the key is missing or not base64. */
    public static @org.jspecify.annotations.Nullable String read(Secret secret, String key) {
        String encoded = secret.getData() == null ? null : secret.getData().get(key);
        if (encoded == null) {
            return null;
        }
        try {
            return new String(Base64.getDecoder().decode(encoded), StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }

    private static String encode(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.US_ASCII));
    }

    private WorkerSecretBuilder() {}
}
