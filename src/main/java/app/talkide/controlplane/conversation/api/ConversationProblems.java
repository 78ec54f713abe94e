package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.system.ProblemException;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.List;
import org.springframework.http.HttpStatus;

/** The browser API's own problem types, one per condition; each names the fields at fault. */
final class ConversationProblems {

    private ConversationProblems() {}

    /**
     * The tenant-environment does not exist or the caller is not a member: one answer for both, so
     * tenant names cannot be probed, as conversation ids cannot.
     */
    static final class UnknownTenantEnvironment extends ProblemException {
        UnknownTenantEnvironment(TenantEnvironmentId id) {
            super(
                    HttpStatus.BAD_REQUEST,
                    "unknown-tenant-environment",
                    "Unknown tenant-environment",
                    "You are not a member of a tenant-environment " + id + ".");
            getBody().setProperty("errors", List.of("tenant, env: not a tenant-environment of yours"));
        }
    }

    /** A query parameter the API cannot use. */
    static final class InvalidQuery extends ProblemException {
        InvalidQuery(String field, String why) {
            super(HttpStatus.BAD_REQUEST, "invalid-query", "Invalid query", field + ": " + why);
            getBody().setProperty("errors", List.of(field + ": " + why));
        }
    }
}
