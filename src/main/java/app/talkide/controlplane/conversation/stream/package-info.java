/**
 * The browser's live view of a conversation: {@code GET /api/conversations/{id}/stream} as Server-Sent
 * Events, replayed from the event log after the client's last id, then fed from the conversation's feed.
 */
@NullMarked
package app.talkide.controlplane.conversation.stream;

import org.jspecify.annotations.NullMarked;
