package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.system.ProblemException;
import java.util.UUID;
import org.springframework.http.HttpStatus;

/** No identity token of that id in that tenant-environment. */
class IdentityTokenNotFound extends ProblemException {

    IdentityTokenNotFound(UUID id) {
        super(
                HttpStatus.NOT_FOUND,
                "identity-token-not-found",
                "Identity token not found",
                "No identity token " + id + " in this tenant-environment.");
    }
}
