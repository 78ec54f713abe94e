package app.talkide.controlplane.conversation;

import java.util.UUID;

/** The conversation's owner asked to stop the running turn. */
public record InterruptRequested(UUID conversationId, String userId) {}
