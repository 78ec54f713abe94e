package app.talkide.controlplane.token;

/**
 * What the {@link WorkerTokenCheck} concluded about a request's WorkerToken. A refusal is answered by the
 * caller, in the shape its own callers understand (a problem detail, or the Anthropic error on the
 * gateway's paths).
 */
public sealed interface WorkerTokenVerdict {

    /** The token verifies and its conversation, tenant-environment and owner still match. */
    record Accepted(WorkerPrincipal principal) implements WorkerTokenVerdict {}

    /** Refused, for a reason that is safe to show (it never includes any part of the token). */
    record Refused(RejectionReason reason) implements WorkerTokenVerdict {}
}
