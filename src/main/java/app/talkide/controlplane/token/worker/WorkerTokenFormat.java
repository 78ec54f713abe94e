package app.talkide.controlplane.token.worker;

import com.nimbusds.jose.JOSEObjectType;

/** The wire constants of a WorkerToken, shared by issuer and verifier. */
final class WorkerTokenFormat {

    /** Explicit type (RFC 8725 §3.11), so a command token can never pass as a WorkerToken. */
    static final JOSEObjectType TYPE = new JOSEObjectType("wt+jwt");

    static final String TENANT = "tid";
    static final String ENV = "eid";
    static final String CONVERSATION = "cid";
    static final String USER = "uid";
    static final String SUBJECT_PREFIX = "worker:";
    static final int MAX_LENGTH = 4096;

    private WorkerTokenFormat() {}
}
