package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** A tenant-environment whose namespace would be one the cluster or the control plane itself uses. */
class ReservedNamespace extends ProblemException {

    ReservedNamespace(String namespace) {
        super(
                HttpStatus.BAD_REQUEST,
                "reserved-namespace",
                "Reserved namespace",
                "The namespace '" + namespace + "' is reserved and cannot belong to a tenant-environment.");
    }
}
