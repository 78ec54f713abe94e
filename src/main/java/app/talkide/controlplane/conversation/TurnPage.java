package app.talkide.controlplane.conversation;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Some of a conversation's last turns, whole, with everything that happened between them.
 *
 * @param events oldest first
 * @param before ask for the turns before this page with this; {@code null} when the page starts at the
 *     conversation's beginning
 * @param cursor the last sequence number the page covers: the stream goes live after it
 */
public record TurnPage(
        List<ConversationEvent> events, @Nullable Long before, long cursor) {}
