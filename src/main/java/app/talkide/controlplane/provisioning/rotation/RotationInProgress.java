package app.talkide.controlplane.provisioning.rotation;

import app.talkide.controlplane.system.ProblemException;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.springframework.http.HttpStatus;

/** Another rotation changed the worker's Secret while this one ran; this one backed out. */
class RotationInProgress extends ProblemException {

    RotationInProgress(TenantEnvironmentId id) {
        super(
                HttpStatus.CONFLICT,
                "rotation-in-progress",
                "Rotation in progress",
                "The token of " + id + " was changed by another rotation at the same moment; nothing was changed"
                        + " by this one. Check the tokens and try again if needed.");
    }
}
