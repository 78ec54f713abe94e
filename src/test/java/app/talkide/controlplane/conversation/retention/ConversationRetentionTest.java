package app.talkide.controlplane.conversation.retention;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.conversation.compaction.LogCompactor;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Retention per tenant-environment: kept by default, idle conversations deleted with all they hold. */
@DatabaseTest
@Import(ClockTestConfiguration.class)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.auth.local-users[0].username=operator",
            "talkide.auth.local-users[0].password-hash={noop}operator-pw",
            "talkide.auth.local-users[0].roles=ADMIN",
            "talkide.auth.local-users[1].username=user",
            "talkide.auth.local-users[1].password-hash={noop}user-pw",
            "talkide.auth.local-users[1].roles=USER",
            "talkide.conversations.retention.enabled=false",
            "talkide.conversations.compaction.enabled=false",
            "talkide.conversations.compaction.after=0s"
        })
class ConversationRetentionTest {

    static final String OPERATOR = TestHttp.basic("operator", "operator-pw");
    static final String USER = TestHttp.basic("user", "user-pw");

    @Autowired
    ApplicationContext context;

    @Autowired
    ConversationRetention retention;

    @Autowired
    ConversationEventLog log;

    @Autowired
    MutableClock clock;

    @Autowired
    JdbcClient jdbc;

    @LocalServerPort
    int port;

    TenantEnvironmentId kept;
    TenantEnvironmentId expiring;

    @BeforeEach
    void setUp() {
        kept = Fixtures.tenantEnvironment(context);
        expiring = Fixtures.tenantEnvironment(context);
    }

    @Test
    void idleConversationsGoWithEverythingTheyHoldOnlyWhereASettingSaysSo() {
        UUID old = conversationWithATurn(expiring);
        UUID oldButKept = conversationWithATurn(kept);
        UUID silent = context.getBean(Conversations.class)
                .start(expiring, "alice", "never used")
                .id();
        context.getBean(LogCompactor.class).compact(old);
        UUID recent = conversationWithATurn(expiring);
        clock.advance(Duration.ofDays(31));
        UUID active = conversationWithATurn(expiring);
        UUID talkedToAgain = recent;
        append(talkedToAgain, "worker.status", "{\"status\":\"ready\"}");

        retention.keepFor(expiring, 30);
        assertThat(retention.deleteExpired()).isEqualTo(2);

        assertThat(exists(old)).isFalse();
        assertThat(exists(silent)).isFalse();
        assertThat(rows("conversation_event", old)).isZero();
        assertThat(rows("conversation_sequence", old)).isZero();
        assertThat(rows("conversation_compaction", old)).isZero();
        assertThat(rows("conversation_message", old)).isZero();
        assertThat(exists(oldButKept)).as("no setting: kept").isTrue();
        assertThat(exists(active)).isTrue();
        assertThat(exists(talkedToAgain))
                .as("an event within the period keeps it")
                .isTrue();
        assertThat(retention.deleteExpired()).as("a second run finds nothing").isZero();
    }

    @Test
    void operatorsSetAndClearTheSettingThroughTheAdminApi() {
        TestHttp http = new TestHttp(port);
        String path = "/api/admin/tenant-environments/%s/%s/conversation-retention"
                .formatted(expiring.tenant(), expiring.env());

        assertThat(http.get(path, "Authorization", OPERATOR)
                        .json()
                        .get("keepDays")
                        .isNull())
                .isTrue();
        assertThat(http.send(put(http, path, "{\"keepDays\":90}")).status()).isEqualTo(200);
        assertThat(http.get(path, "Authorization", OPERATOR)
                        .json()
                        .get("keepDays")
                        .asInt())
                .isEqualTo(90);
        assertThat(http.send(put(http, path, "{\"keepDays\":null}")).status()).isEqualTo(200);
        assertThat(retention.keepDays(expiring)).isEmpty();

        assertThat(http.send(put(http, path, "{\"keepDays\":0}")).status()).isEqualTo(400);
        assertThat(http.get("/api/admin/tenant-environments/nope/dev/conversation-retention", "Authorization", OPERATOR)
                        .status())
                .isEqualTo(404);
        assertThat(http.get(path, "Authorization", USER).status()).isEqualTo(403);
    }

    private static java.net.http.HttpRequest put(TestHttp http, String path, String json) {
        return http.request(path)
                .header("Authorization", OPERATOR)
                .header("Content-Type", "application/json")
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(json))
                .build();
    }

    private UUID conversationWithATurn(TenantEnvironmentId in) {
        UUID id = Fixtures.conversation(context, in, "alice").id();
        append(id, "turn.started", "{\"turnId\":\"t\",\"messageId\":\"m\"}");
        append(id, "text.delta", "{\"turnId\":\"t\",\"text\":\"a\"}");
        append(id, "text.delta", "{\"turnId\":\"t\",\"text\":\"b\"}");
        append(id, "turn.completed", "{\"turnId\":\"t\",\"stopReason\":\"end_turn\",\"usage\":{}}");
        return id;
    }

    private void append(UUID id, String type, String data) {
        log.append(id, List.of(new NewConversationEvent(type, data, null)));
    }

    private boolean exists(UUID id) {
        return context.getBean(Conversations.class).find(id).isPresent();
    }

    private long rows(String table, UUID id) {
        return jdbc.sql("select count(*) from " + table + " where conversation_id = :id")
                .param("id", id)
                .query(Long.class)
                .single();
    }
}
