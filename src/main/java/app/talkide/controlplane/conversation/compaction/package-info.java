/**
 * Compaction of the conversation event log: once a turn has ended, its deltas are folded into one event
 * per content block and their rows are deleted in batches by a background job; sequence numbers are
 * never reused.
 */
@NullMarked
package app.talkide.controlplane.conversation.compaction;

import org.jspecify.annotations.NullMarked;
