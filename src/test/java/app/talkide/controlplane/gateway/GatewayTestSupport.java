package app.talkide.controlplane.gateway;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import org.springframework.context.ApplicationContext;

/** A worker's view of the gateway in tests: a conversation of a fresh user and a WorkerToken for it. */
public record GatewayTestSupport(TenantEnvironmentId tenantEnvironment, Conversation conversation, String token) {

    public static final String API_KEY = "sk-ant-test-NEVER-LOG-THIS-0123456789";
    public static final String MESSAGES = "/api/internal/gateway/anthropic/v1/messages";

    /** A new tenant-environment, user and conversation. */
    public static GatewayTestSupport newWorker(ApplicationContext context) {
        TenantEnvironmentId id = Fixtures.tenantEnvironment(context);
        Conversation conversation = Fixtures.conversation(
                context, id, "user-" + java.util.UUID.randomUUID().toString().substring(0, 8));
        String token = context.getBean(WorkerTokenIssuer.class)
                .issue(conversation.scope())
                .token();
        return new GatewayTestSupport(id, conversation, token);
    }

    public String userId() {
        return conversation.ownerUserId();
    }
}
