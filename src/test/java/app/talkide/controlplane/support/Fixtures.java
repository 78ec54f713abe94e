package app.talkide.controlplane.support;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.token.identity.IssuedIdentityToken;
import java.util.UUID;
import org.springframework.context.ApplicationContext;

/** Small factories for the records most tests start from. */
public final class Fixtures {

    private Fixtures() {}

    /** A tenant-environment with a unique tenant name, registered. */
    public static TenantEnvironmentId tenantEnvironment(ApplicationContext context) {
        TenantEnvironmentId id =
                TenantEnvironmentId.of("t" + UUID.randomUUID().toString().substring(0, 8), "dev");
        context.getBean(TenantEnvironments.class).register(id);
        return id;
    }

    /** A conversation of {@code owner}, who is made a member of the tenant-environment as a real owner is. */
    public static Conversation conversation(ApplicationContext context, TenantEnvironmentId in, String owner) {
        context.getBean(Memberships.class).grant(in, owner);
        return context.getBean(Conversations.class).start(in, owner, "test conversation");
    }

    public static IssuedIdentityToken identityToken(ApplicationContext context, TenantEnvironmentId of) {
        return context.getBean(IdentityTokens.class).issue(of);
    }
}
