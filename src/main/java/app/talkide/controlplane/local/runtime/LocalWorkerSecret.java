package app.talkide.controlplane.local.runtime;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.CommandKeys;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.springframework.stereotype.Component;

/**
 * The embedded worker's Secret {@code talkide-worker-token}, kept as files the way Kubernetes mounts a
 * Secret: {@code identity-token} and {@code command-key} in an owner-only directory. The identity token is
 * issued once and reused across restarts while it still verifies (the control plane keeps only its hash,
 * so the file is the only copy); it is reissued when expired or revoked. The command key is rewritten on
 * every start, as provisioning would after a master-key change.
 */
@Component
class LocalWorkerSecret {

    private final IdentityTokens identityTokens;
    private final CommandKeys commandKeys;

    LocalWorkerSecret(IdentityTokens identityTokens, CommandKeys commandKeys) {
        this.identityTokens = identityTokens;
        this.commandKeys = commandKeys;
    }

    /** Makes sure the Secret directory holds a valid identity token and the current command keys. */
    void ensure(Path secretDir, TenantEnvironmentId tenantEnvironment) {
        try {
            Files.createDirectories(secretDir);
            restrictToOwner(secretDir, "rwx------");
            Path tokenFile = secretDir.resolve(WorkerSecretKeys.IDENTITY_TOKEN);
            boolean valid = Files.exists(tokenFile)
                    && identityTokens
                            .verify(Files.readString(tokenFile).trim())
                            .filter(identity -> identity.tenantEnvironment().equals(tenantEnvironment))
                            .isPresent();
            if (!valid) {
                write(tokenFile, identityTokens.issue(tenantEnvironment).token());
            }
            write(
                    secretDir.resolve(WorkerSecretKeys.COMMAND_KEY),
                    commandKeys.forWorker(tenantEnvironment).format());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the embedded worker's secret in " + secretDir, e);
        }
    }

    static String read(Path secretDir, String key) {
        try {
            return Files.readString(secretDir.resolve(key), StandardCharsets.US_ASCII)
                    .trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + key + " from " + secretDir, e);
        }
    }

    private static void write(Path file, String value) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temporary, value, StandardCharsets.US_ASCII);
        restrictToOwner(temporary, "rw-------");
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void restrictToOwner(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the user profile's ACLs are the closest equivalent.
        }
    }
}
