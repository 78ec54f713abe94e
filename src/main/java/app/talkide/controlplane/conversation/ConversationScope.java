package app.talkide.controlplane.conversation;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.UUID;

/** What a token for a conversation is scoped to: the conversation, its tenant-environment, its owner. */
public record ConversationScope(UUID conversationId, TenantEnvironmentId tenantEnvironment, String ownerUserId) {}
