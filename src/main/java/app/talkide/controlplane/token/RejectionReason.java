package app.talkide.controlplane.token;

/**
 * Why a WorkerToken was refused. Counted in {@code talkide_worker_token_rejections_total{reason}} and
 * safe to show: a reason never includes any part of the token.
 */
public enum RejectionReason {
    MISSING,
    OVERSIZED,
    MALFORMED,
    BAD_ALGORITHM,
    WRONG_TYPE,
    UNKNOWN_KID,
    /** The claims name a tenant-environment that does not exist (or is deleted); no key is derived for it. */
    UNKNOWN_TENANT_ENVIRONMENT,
    BAD_SIGNATURE,
    WRONG_ISSUER,
    WRONG_AUDIENCE,
    EXPIRED,
    NOT_YET_VALID,
    ISSUED_IN_FUTURE,
    BAD_CLAIMS,
    /** Validly signed, but the conversation no longer exists or does not match the token's scope. */
    WRONG_SCOPE;

    /** The lower-case form used in metrics and error messages. */
    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
