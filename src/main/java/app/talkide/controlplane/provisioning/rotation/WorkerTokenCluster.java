package app.talkide.controlplane.provisioning.rotation;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The two places a worker's identity token lives in the cluster: key {@code identity-token} of Secret
 * {@code talkide-worker-token}, and (through the pod-template annotation {@code talkide.app/rolled-at})
 * the pods started after it changed. Only that key and that annotation are ever patched, so the command
 * key and everything the reconciler owns stay as they are.
 */
class WorkerTokenCluster {

    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

    private final KubernetesClient client;

    WorkerTokenCluster(KubernetesClient client) {
        this.client = client;
    }

    /** The token in the worker's Secret and the Secret's version, or empty when there is no Secret. */
    Optional<SecretToken> read(TenantEnvironmentId id) {
        Secret secret = client.secrets()
                .inNamespace(ManagedNames.namespaceOf(id))
                .withName(ManagedNames.WORKER_SECRET)
                .get();
        if (secret == null) {
            return Optional.empty();
        }
        Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
        String encoded = data.get(WorkerSecretKeys.IDENTITY_TOKEN);
        String token =
                encoded == null ? null : new String(Base64.getDecoder().decode(encoded), StandardCharsets.US_ASCII);
        return Optional.of(new SecretToken(token, secret.getMetadata().getResourceVersion()));
    }

    /**
     * Replaces the token, provided the Secret is still at {@code resourceVersion}; returns false when
     * something else changed it meanwhile (the API server answers 409).
     */
    boolean replace(TenantEnvironmentId id, String token, String resourceVersion) {
        String encoded = Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.US_ASCII));
        String patch = "{\"metadata\":{\"resourceVersion\":\"" + resourceVersion + "\"},\"data\":{\""
                + WorkerSecretKeys.IDENTITY_TOKEN + "\":\"" + encoded + "\"}}";
        try {
            client.secrets()
                    .inNamespace(ManagedNames.namespaceOf(id))
                    .withName(ManagedNames.WORKER_SECRET)
                    .patch(MERGE, patch);
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                return false;
            }
            throw e;
        }
    }

    /** Restarts the worker's pods by stamping the pod template; false when there is no Deployment yet. */
    boolean roll(TenantEnvironmentId id, Instant at) {
        String patch = "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"" + ManagedNames.ROLLED_AT_ANNOTATION
                + "\":\"" + at + "\"}}}}}";
        try {
            client.apps()
                    .deployments()
                    .inNamespace(ManagedNames.namespaceOf(id))
                    .withName(ManagedNames.WORKER)
                    .patch(MERGE, patch);
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /** When the worker's pods were last rolled on purpose, or null if never (or unreadable). */
    @Nullable
    Instant rolledAt(TenantEnvironmentId id) {
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(ManagedNames.namespaceOf(id))
                .withName(ManagedNames.WORKER)
                .get();
        if (deployment == null
                || deployment.getSpec() == null
                || deployment.getSpec().getTemplate() == null
                || deployment.getSpec().getTemplate().getMetadata() == null
                || deployment.getSpec().getTemplate().getMetadata().getAnnotations() == null) {
            return null;
        }
        String value = deployment
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(ManagedNames.ROLLED_AT_ANNOTATION);
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** What the Secret holds; {@code token} is null when the key is missing. */
    record SecretToken(@Nullable String token, String resourceVersion) {

        @Override
        public String toString() {
            return "SecretToken[token=<redacted>, resourceVersion=" + resourceVersion + "]";
        }
    }
}
