package app.talkide.controlplane.conversation.api;

import java.util.List;

/**
 * Events of a conversation after a sequence number.
 *
 * @param hasMore more events follow the last one here: ask again with {@code after} = its seq
 */
record EventPage(List<EventView> events, boolean hasMore) {}
