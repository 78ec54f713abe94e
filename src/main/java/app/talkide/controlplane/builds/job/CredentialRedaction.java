package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildKind;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Takes the push credential out of an image build's log before the log is stored, and so before it is
 * served to the worker (and Mara) or the console. kaniko runs {@code RUN} steps in its own container, so
 * a Dockerfile can read the mounted {@code config.json}; a step that prints it, or the password or
 * token in it, leaves only {@link #MARK} in the log. This stops a credential printed as it is (a {@code
 * cat}, an {@code env} dump); it cannot stop a step that encodes it first (base64, split over lines)
 * or sends it elsewhere over the network, so the credential itself must be one that can push only under
 * the tenant-environment's own prefix (docs/builds.md).
 */
final class CredentialRedaction {

    static final String MARK = "[redacted: registry credential]";
    /** Shorter values are not taken out: they would cut every log to pieces, and a credential that short is no credential. */
    static final int SHORTEST = 8;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> SECRET_FIELDS = List.of("auth", "password", "identitytoken", "registrytoken");

    private final KubernetesClient client;
    private final String secretName;
    private final Map<UUID, List<String>> secretsByBuild = new ConcurrentHashMap<>();

    CredentialRedaction(KubernetesClient client, String secretName) {
        this.client = client;
        this.secretName = secretName;
    }

    /** Thrown when the credential cannot be read now: the log is not stored unredacted, but read again later. */
    static final class Unavailable extends RuntimeException {
        Unavailable(String message) {
            super(message);
        }
    }

    /** {@code lines} with every value of the build's push credential replaced by {@link #MARK}. */
    List<String> redact(Build build, List<String> lines) {
        if (build.spec().kind() != BuildKind.IMAGE) {
            return lines; // nothing of the credential is mounted into a Gradle build
        }
        List<String> secrets = secretsByBuild.computeIfAbsent(build.id(), id -> secretsOf(build));
        if (secrets.isEmpty()) {
            return lines;
        }
        List<String> redacted = new ArrayList<>(lines.size());
        for (String line : lines) {
            for (String secret : secrets) {
                line = line.replace(secret, MARK);
            }
            redacted.add(line);
        }
        return redacted;
    }

    /** The build ended: its credential values are no longer needed. */
    void forget(UUID build) {
        secretsByBuild.remove(build);
    }

    private List<String> secretsOf(Build build) {
        Secret secret;
        try {
            secret = client.secrets()
                    .inNamespace(build.tenantEnvironment().namespace())
                    .withName(secretName)
                    .get();
        } catch (KubernetesClientException e) {
            throw new Unavailable("cannot read the registry credential Secret (" + e.getCode() + ")");
        }
        String encoded = secret == null || secret.getData() == null
                ? null
                : secret.getData().get(".dockerconfigjson");
        if (encoded == null) {
            // Without it the pod cannot mount its credential and never starts: no log to redact.
            return List.of();
        }
        try {
            return values(new String(Base64.getMimeDecoder().decode(encoded), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException | JacksonException e) {
            throw new Unavailable("the registry credential Secret is not a Docker config");
        }
    }

    /** Every secret value of a Docker {@code config.json}, as written and as a step could print it; longest first. */
    static List<String> values(String dockerConfig) {
        Set<String> values = new LinkedHashSet<>();
        JsonNode auths = JSON.readTree(dockerConfig).path("auths");
        for (JsonNode registry : auths) {
            for (String field : SECRET_FIELDS) {
                String value = registry.path(field).asString("");
                add(values, value);
                if (field.equals("auth")) {
                    String decoded = decode(value);
                    add(values, decoded);
                    int colon = decoded == null ? -1 : decoded.indexOf(':');
                    add(values, colon < 0 ? null : decoded.substring(colon + 1));
                }
            }
        }
        List<String> sorted = new ArrayList<>(values);
        // Longest first, so a value containing another is replaced whole.
        sorted.sort(Comparator.comparingInt(String::length).reversed());
        return List.copyOf(sorted);
    }

    private static void add(Set<String> values, @Nullable String value) {
        if (value != null && value.length() >= SHORTEST) {
            values.add(value);
            // As config.json spells it, when it has characters JSON escapes.
            values.add(value.replace("\\", "\\\\").replace("\"", "\\\""));
        }
    }

    private static @Nullable String decode(String base64) {
        try {
            return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }
}
