package app.talkide.controlplane.conversation;

import org.jspecify.annotations.Nullable;

/**
 * An event to append.
 *
 * @param type e.g. {@code text.delta}, {@code turn.completed}, {@code worker.status}, {@code message.accepted}
 * @param data the event's JSON object, already serialized
 * @param sourceEventId the worker's own event id for events read from a worker stream (de-duplication
 *     key, and what the stream resumes from); {@code null} for the control plane's own events
 */
public record NewConversationEvent(
        String type, String data, @Nullable String sourceEventId) {}
