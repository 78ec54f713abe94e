package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.system.ProblemException;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;

/**
 * A desired state the cluster must not be given: a malformed quantity, image or label. Where one field is to
 * blame, the problem names it in {@code field} (its JSON path in the request body, e.g. {@code pod.tolerations[0].effect}).
 */
class InvalidDesiredState extends ProblemException {

    InvalidDesiredState(String detail) {
        this(null, detail);
    }

    InvalidDesiredState(@Nullable String field, String detail) {
        super(HttpStatus.BAD_REQUEST, "invalid-desired-state", "Invalid desired state", detail);
        if (field != null) {
            getBody().setProperty("field", field);
        }
    }

    @Nullable
    String field() {
        return getBody().getProperties() == null
                ? null
                : (String) getBody().getProperties().get("field");
    }
}
