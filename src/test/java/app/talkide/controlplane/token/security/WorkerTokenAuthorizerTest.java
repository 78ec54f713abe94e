package app.talkide.controlplane.token.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.WorkerTokenCheck;
import app.talkide.controlplane.token.WorkerTokenVerdict;
import app.talkide.controlplane.token.worker.OwnerStanding;
import app.talkide.controlplane.token.worker.VerifiedWorkerTokens;
import app.talkide.controlplane.token.worker.WorkerTokenRejected;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/** A verified token is accepted only while its conversation, tenant-environment, owner and standing still match. */
class WorkerTokenAuthorizerTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "prod");

    final VerifiedWorkerTokens tokens = mock(VerifiedWorkerTokens.class);
    final ConversationDirectory conversations = mock(ConversationDirectory.class);
    final OwnerStanding standing = mock(OwnerStanding.class);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final WorkerTokenAuthorizer authorizer = new WorkerTokenAuthorizer(tokens, conversations, standing, meters);

    final UUID conversation = UUID.randomUUID();
    final WorkerPrincipal principal =
            new WorkerPrincipal(ACME, conversation, "ann", "jti", Instant.parse("2026-01-01T00:02:00Z"));

    @Test
    void aTokenWhoseScopeStillMatchesIsAccepted() throws Exception {
        verified();
        scope(new ConversationScope(conversation, ACME, "ann"), true);

        assertThat(authorizer.check(request())).isEqualTo(new WorkerTokenVerdict.Accepted(principal));
    }

    @Test
    void anyMismatchOfScopeIsRefusedAsWrongScope() throws Exception {
        verified();
        scope(new ConversationScope(conversation, TenantEnvironmentId.of("other", "prod"), "ann"), true);
        assertThat(authorizer.check(request())).isEqualTo(new WorkerTokenVerdict.Refused(RejectionReason.WRONG_SCOPE));

        scope(new ConversationScope(conversation, ACME, "bob"), true);
        assertThat(authorizer.check(request())).isEqualTo(new WorkerTokenVerdict.Refused(RejectionReason.WRONG_SCOPE));

        scope(new ConversationScope(conversation, ACME, "ann"), false);
        assertThat(authorizer.check(request())).isEqualTo(new WorkerTokenVerdict.Refused(RejectionReason.WRONG_SCOPE));

        when(conversations.scopeOf(conversation)).thenReturn(Optional.empty());
        assertThat(authorizer.check(request())).isEqualTo(new WorkerTokenVerdict.Refused(RejectionReason.WRONG_SCOPE));

        assertThat(rejections("wrong_scope")).isEqualTo(4);
    }

    @Test
    void aTokenThatDoesNotVerifyIsRefusedForItsReasonAndCounted() throws Exception {
        when(tokens.verify("bad")).thenThrow(new WorkerTokenRejected(RejectionReason.EXPIRED));

        MockHttpServletRequest request = new MockHttpServletRequest();
        request.addHeader(WorkerTokenCheck.HEADER, "bad");
        assertThat(authorizer.check(request)).isEqualTo(new WorkerTokenVerdict.Refused(RejectionReason.EXPIRED));
        assertThat(rejections("expired")).isEqualTo(1);
    }

    private void verified() throws WorkerTokenRejected {
        when(tokens.verify("good")).thenReturn(principal);
    }

    private void scope(ConversationScope scope, boolean inGoodStanding) {
        when(conversations.scopeOf(conversation)).thenReturn(Optional.of(scope));
        when(standing.workerMayActFor(any())).thenReturn(inGoodStanding);
    }

    private double rejections(String reason) {
        return meters.counter("talkide.worker.token.rejections", "reason", reason)
                .count();
    }

    private static MockHttpServletRequest request() {
        MockHttpServletRequest request = new MockHttpServletRequest();
        request.addHeader(WorkerTokenCheck.HEADER, "good");
        return request;
    }
}
