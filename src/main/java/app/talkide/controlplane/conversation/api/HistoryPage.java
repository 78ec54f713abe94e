package app.talkide.controlplane.conversation.api;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Whole turns of a conversation, read backwards from its end.
 *
 * @param before pass as {@code before} for the turns before these; null: this page starts at the beginning
 * @param cursor the last sequence number this page covers: open the stream with {@code lastEventId} = it
 */
record HistoryPage(List<EventView> events, @Nullable Long before, long cursor) {}
