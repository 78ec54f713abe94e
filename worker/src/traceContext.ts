/**
 * The W3C `traceparent` a command carries (docs/worker-contract.md, Trace context). The worker makes no
 * spans: it passes the message command's context on, unchanged, on every call back its turn causes (mint,
 * gateway, reports). The engine's HTTP client cannot add headers, so the running turn's value is kept here
 * per conversation and the gateway proxy and the reports look it up.
 */
export const TRACEPARENT = 'traceparent';

// Version 00 only; all-zero trace or span ids are invalid (W3C Trace Context §3.2.2).
const VALID = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The value if it is a well-formed `traceparent`, else undefined: a malformed one is never passed on. */
export function validTraceparent(value: unknown): string | undefined {
  return typeof value === 'string' && VALID.test(value) ? value : undefined;
}

/** Adds the header when there is a context; a call outside a traced turn goes without. */
export function withTraceparent(
  headers: Record<string, string>,
  traceparent: string | undefined,
): Record<string, string> {
  if (traceparent) {
    headers[TRACEPARENT] = traceparent;
  }
  return headers;
}

/** The running turn's `traceparent` per conversation (one turn at a time per conversation). */
export class TurnTraces {
  private readonly current = new Map<string, string>();

  begin(conversationId: string, traceparent: string | undefined): void {
    if (traceparent) {
      this.current.set(conversationId, traceparent);
    } else {
      this.current.delete(conversationId);
    }
  }

  /** Ends only the turn that began with this value, so a late end cannot clear the next turn's. */
  end(conversationId: string, traceparent: string | undefined): void {
    if (this.current.get(conversationId) === traceparent) {
      this.current.delete(conversationId);
    }
  }

  of(conversationId: string): string | undefined {
    return this.current.get(conversationId);
  }
}
