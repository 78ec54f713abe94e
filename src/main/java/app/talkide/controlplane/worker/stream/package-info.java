/**
 * Consuming worker event streams: exactly one replica at a time per conversation (a lease in the
 * database, renewed while held, taken over when it expires), resumed from the last worker event id, each
 * event appended to the conversation's event log under its worker id so a resumed stream never
 * duplicates one.
 */
@NullMarked
package app.talkide.controlplane.worker.stream;

import org.jspecify.annotations.NullMarked;
