/**
 * Conversation retention per tenant-environment: the operator's setting (default: keep) and the job that
 * deletes conversations idle for longer, with their events and everything else they hold.
 */
@NullMarked
package app.talkide.controlplane.conversation.retention;

import org.jspecify.annotations.NullMarked;
