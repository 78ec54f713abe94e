package app.talkide.controlplane.workercontract;

/** Why a worker refused a command token. */
public enum CommandRejection {
    MISSING,
    OVERSIZED,
    MALFORMED,
    BAD_ALGORITHM,
    WRONG_TYPE,
    UNKNOWN_KID,
    BAD_SIGNATURE,
    WRONG_AUDIENCE,
    WRONG_TENANT_ENVIRONMENT,
    EXPIRED,
    ISSUED_IN_FUTURE,
    METHOD_MISMATCH,
    PATH_MISMATCH,
    BODY_MISMATCH,
    REPLAYED
}
