package app.talkide.controlplane.conversation;

import java.util.UUID;

/** Published after the transaction that stored a new user message commits: time to deliver it. */
public record MessageAccepted(UUID conversationId, UUID messageId) {}
