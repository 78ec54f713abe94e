package app.talkide.controlplane.conversation;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.UUID;

/** A conversation: owned by one user, run by the worker of one tenant-environment. */
public record Conversation(
        UUID id, TenantEnvironmentId tenantEnvironment, String ownerUserId, String title, Instant createdAt) {

    public ConversationScope scope() {
        return new ConversationScope(id, tenantEnvironment, ownerUserId);
    }
}
