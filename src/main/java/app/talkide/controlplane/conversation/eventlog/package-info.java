/**
 * The conversation event log: group-committed appends with gapless per-conversation sequences, and the
 * in-memory feeds that carry new events to this replica's subscribers, woken in-process or, on
 * PostgreSQL, by LISTEN/NOTIFY from the other replicas.
 */
@NullMarked
package app.talkide.controlplane.conversation.eventlog;

import org.jspecify.annotations.NullMarked;
