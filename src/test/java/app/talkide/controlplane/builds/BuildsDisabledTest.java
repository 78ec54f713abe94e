package app.talkide.controlplane.builds;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/** Unset means safe: without {@code talkide.builds.enabled} (and a cluster) a build request is refused, clearly. */
@DatabaseTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class BuildsDisabledTest {

    @Autowired
    ApplicationContext context;

    @LocalServerPort
    int port;

    @Test
    void aBuildRequestIsRefusedWhenBuildsAreNotEnabled() {
        TestHttp http = new TestHttp(port);
        TenantEnvironmentId tenantEnvironment = Fixtures.tenantEnvironment(context);
        Conversation conversation = Fixtures.conversation(context, tenantEnvironment, "dev");
        String identity = Fixtures.identityToken(context, tenantEnvironment).token();
        String token = http.postJson(
                        "/api/v1/worker-gateway/token/mint",
                        "{\"conversationId\":\"" + conversation.id() + "\"}",
                        "Authorization",
                        "Bearer " + identity)
                .json()
                .get("token")
                .asString();

        TestHttp.Response refused = http.postJson(
                "/api/internal/worker/builds", "{\"kind\":\"gradle\",\"tasks\":[\"test\"]}", "X-Worker-Token", token);

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("type").asString()).isEqualTo("https://talkide.app/problems/builds-disabled");
        BuildApiSchemas.assertConforms(refused.body(), "Problem");
    }
}
