package app.talkide.controlplane.token.command;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.KeyPurpose;
import app.talkide.controlplane.workercontract.CommandKeySet;
import org.springframework.stereotype.Component;

/**
 * The command keys handed to a tenant-environment's worker (the {@code command-key} of its Secret).
 * Holding them lets a worker verify calls to itself and forge nothing else.
 */
@Component
public class CommandKeys {

    private final DerivedKeys keys;

    CommandKeys(DerivedKeys keys) {
        this.keys = keys;
    }

    public CommandKeySet forWorker(TenantEnvironmentId tenantEnvironment) {
        return new CommandKeySet(keys.allKeys(KeyPurpose.COMMAND, tenantEnvironment));
    }
}
