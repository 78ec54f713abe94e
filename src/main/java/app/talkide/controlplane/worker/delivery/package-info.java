/**
 * Delivering accepted user messages to workers: in order, one turn at a time per conversation, retried
 * with backoff while the worker restarts or is unreachable, and resumed after a control-plane restart;
 * and passing interrupts on.
 */
@NullMarked
package app.talkide.controlplane.worker.delivery;

import org.jspecify.annotations.NullMarked;
