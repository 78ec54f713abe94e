package app.talkide.controlplane.provisioning.desired;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.net.http.HttpRequest;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A tenant-environment's MCP servers over HTTP (local mode, H2 and PostgreSQL): set, read back with every
 * header value redacted, announced as a desired-state change, and bad lists refused with 400 problem details
 * naming the field, before anything is stored.
 */
@DatabaseTest
@ExtendWith(OutputCaptureExtension.class)
@AdminApiContext
class McpServersAdminApiTest {

    static final String ADMIN = TestHttp.basic("root", "root-pw");
    static final String ALICE = TestHttp.basic("alice", "alice-pw");
    static final String SECRET = "Bearer mcp-s3cret-value";

    @LocalServerPort
    int port;

    @Autowired
    DesiredStateEvents events;

    @Autowired
    DesiredStates desiredStates;

    TestHttp http;
    String tenant;
    TenantEnvironmentId id;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        tenant = "t" + UUID.randomUUID().toString().substring(0, 8);
        id = TenantEnvironmentId.of(tenant, "dev");
        assertThat(send("PUT", "/api/admin/tenant-environments/" + tenant + "/dev", "{}", ADMIN)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void anAdminSetsTheListReadsItBackRedactedAndTheChangeIsAnnounced(CapturedOutput output) {
        TestHttp.Response set = put("""
                {"servers":[{"name":"docs","url":"https://mcp.example.com/mcp",
                             "headers":{"Authorization":"%s","X-Team":"blue"}},
                            {"name":"search","url":"https://search.example.com:8443/sse","transport":"sse"}]}
                """.formatted(SECRET));

        assertThat(set.status()).isEqualTo(200);
        assertThat(set.body()).doesNotContain("s3cret");
        assertThat(set.json()
                        .path("servers")
                        .get(0)
                        .path("headers")
                        .path("Authorization")
                        .asString())
                .isEqualTo("<redacted>");
        assertThat(set.json().path("servers").get(0).path("transport").asString())
                .isEqualTo("http");
        TestHttp.Response read = http.get(path(), "Authorization", ADMIN);
        assertThat(read.body()).doesNotContain("s3cret").contains("X-Team");
        assertThat(read.json().path("servers").get(1).path("url").asString())
                .isEqualTo("https://search.example.com:8443/sse");
        // Not in the desired state's own view either (its effective state is built from the same record).
        assertThat(http.get("/api/admin/tenant-environments/" + tenant + "/dev", "Authorization", ADMIN)
                        .body())
                .doesNotContain("s3cret")
                .doesNotContain("mcpServers");
        // Stored in full for the worker.
        assertThat(desiredStates.mcpServers(id).getFirst().headers()).containsEntry("Authorization", SECRET);
        assertThat(output.getAll()).doesNotContain("s3cret");

        long changes = events.seen.stream()
                .filter(e -> e.tenantEnvironment().equals(id))
                .count();
        put(set.body().replace("<redacted>", SECRET).replace("\"transport\":\"http\",", ""));
        assertThat(events.seen.stream()
                        .filter(e -> e.tenantEnvironment().equals(id))
                        .count())
                .as("the same list again changes nothing")
                .isEqualTo(changes + 1);
        assertThat(put("{\"servers\":[]}").json().path("servers").isEmpty()).isTrue();
        assertThat(desiredStates.mcpServers(id)).isEmpty();
        assertThat(events.seen.stream()
                        .filter(e -> e.tenantEnvironment().equals(id))
                        .count())
                .isEqualTo(changes + 2);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{}                                                                              | servers",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"http://mcp.example.com/mcp\"}]}       | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://user:pw@mcp.example.com/\"}]} | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://localhost/mcp\"}]}            | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://127.0.0.1/mcp\"}]}            | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://2130706433/mcp\"}]}           | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://0x7f.1/mcp\"}]}               | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://[::1]/mcp\"}]}                | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://[::ffff:169.254.169.254]/\"}]} | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://169.254.169.254/latest\"}]}   | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://10.0.0.7/mcp\"}]}             | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://metadata.google.internal/\"}]} | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://talkide-control-plane/\"}]}   | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://w.t-dev.svc.cluster.local/\"}]} | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://mcp.example.com/#x\"}]}       | servers[0].url",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"not a url\"}]}                        | servers[0].url",
                "{\"servers\":[{\"name\":\"Docs\",\"url\":\"https://mcp.example.com/\"}]}         | servers[0].name",
                "{\"servers\":[{\"name\":\"talkide-builds\",\"url\":\"https://mcp.example.com/\"}]} | servers[0].name",
                "{\"servers\":[{\"name\":\"a\",\"url\":\"https://a.example.com/\"},{\"name\":\"a\",\"url\":\"https://b.example.com/\"}]} | servers[1].name",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://mcp.example.com/\",\"transport\":\"stdio\"}]} | servers[0].transport",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://mcp.example.com/\",\"headers\":{\"Host\":\"x\"}}]} | servers[0].headers.Host",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://mcp.example.com/\",\"headers\":{\"X-A\":\"1\\r\\nX-B: 2\"}}]} | servers[0].headers.X-A",
                "{\"servers\":[{\"name\":\"docs\",\"url\":\"https://mcp.example.com/\",\"headers\":{\"bad name\":\"1\"}}]} | servers[0].headers",
            })
    void badListsAreRefusedWithAProblemNamingTheFieldAndNothingIsStored(String body, String field) {
        TestHttp.Response refused = put(body);

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.json().path("type").asString())
                .isEqualTo("https://talkide.app/problems/invalid-desired-state");
        assertThat(refused.json().path("field").asString()).isEqualTo(field);
        assertThat(desiredStates.mcpServers(id)).isEmpty();
    }

    @Test
    void aRefusedHeaderValueIsNeverQuotedBack() {
        TestHttp.Response refused = put("""
                {"servers":[{"name":"docs","url":"https://mcp.example.com/","headers":{"Authorization":"Bearer s3cret\\n"}}]}
                """);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body()).doesNotContain("s3cret");
    }

    @Test
    void tooManyServersAreRefused() {
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i <= McpServerRules.MAX_SERVERS; i++) {
            servers.append(i == 0 ? "" : ",")
                    .append("{\"name\":\"s")
                    .append(i)
                    .append("\",\"url\":\"https://s.example.com/\"}");
        }
        TestHttp.Response refused = put("{\"servers\":[" + servers + "]}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().path("field").asString()).isEqualTo("servers");
    }

    @Test
    void malformedJsonIsAProblemAndNotAServerError() {
        TestHttp.Response refused = put("{\"servers\":[{\"name\":");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void anUnknownTenantEnvironmentIs404AndOnlyAdminsMayUseIt() {
        assertThat(send("PUT", "/api/admin/tenant-environments/nope/dev/mcp-servers", "{\"servers\":[]}", ADMIN)
                        .status())
                .isEqualTo(404);
        assertThat(http.get("/api/admin/tenant-environments/nope/dev/mcp-servers", "Authorization", ADMIN)
                        .status())
                .isEqualTo(404);
        assertThat(send("PUT", path(), "{\"servers\":[]}", ALICE).status()).isEqualTo(403);
        assertThat(http.get(path(), "Authorization", ALICE).status()).isEqualTo(403);
    }

    private TestHttp.Response put(String json) {
        return send("PUT", path(), json, ADMIN);
    }

    private TestHttp.Response send(String method, String path, String json, String auth) {
        return http.send(http.request(path)
                .header("Authorization", auth)
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    private String path() {
        return "/api/admin/tenant-environments/" + tenant + "/dev/mcp-servers";
    }
}
