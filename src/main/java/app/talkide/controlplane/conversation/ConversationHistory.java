package app.talkide.controlplane.conversation;

import java.util.UUID;

/** A conversation's event log read by whole turns, newest first, as the console opens it. */
public interface ConversationHistory {

    /**
     * The last {@code turns} turns before sequence number {@code before} ({@code Long.MAX_VALUE}: the
     * newest), never splitting a turn: the page starts right after the end of the turn before its first.
     * The newest page holds at most {@code maxEvents} events (the stream continues after its cursor).
     */
    TurnPage turnsBefore(UUID conversationId, long before, int turns, int maxEvents);
}
