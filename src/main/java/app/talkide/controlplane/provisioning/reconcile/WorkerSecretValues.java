package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.objects.WorkerSecretBuilder;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.CommandKeys;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import io.fabric8.kubernetes.api.model.Secret;
import org.jspecify.annotations.Nullable;

/**
 * What the worker Secret must hold. The control plane keeps only hashes of identity tokens, so the live
 * Secret is the only copy of a token: while it still verifies for this tenant-environment it is kept as it
 * is (token rotation may have just put it there). When the Secret or its token is gone or no longer valid,
 * a new token is issued and every older one is revoked after the rotation grace period, so pods still
 * running with the old one keep minting until the roll replaces them. The command keys always follow the
 * master keys.
 */
final class WorkerSecretValues {

    /** @param changed whether the Secret's content differs from the live one, so the worker must roll */
    record Values(String identityToken, String commandKey, boolean changed) {
        @Override
        public String toString() {
            return "Values[<redacted>, changed=" + changed + "]";
        }
    }

    private final IdentityTokens identityTokens;
    private final CommandKeys commandKeys;

    WorkerSecretValues(IdentityTokens identityTokens, CommandKeys commandKeys) {
        this.identityTokens = identityTokens;
        this.commandKeys = commandKeys;
    }

    Values decide(TenantEnvironmentId id, @Nullable Secret live) {
        String liveToken = live == null ? null : WorkerSecretBuilder.read(live, WorkerSecretKeys.IDENTITY_TOKEN);
        String liveCommandKey = live == null ? null : WorkerSecretBuilder.read(live, WorkerSecretKeys.COMMAND_KEY);
        boolean tokenValid = liveToken != null
                && identityTokens
                        .verify(liveToken)
                        .filter(identity -> identity.tenantEnvironment().equals(id))
                        .isPresent();
        String token =
                tokenValid ? liveToken : identityTokens.rotate(id).token().token();
        String commandKey = commandKeys.forWorker(id).format();
        return new Values(token, commandKey, !tokenValid || !commandKey.equals(liveCommandKey));
    }
}
