package app.talkide.controlplane.provisioning.desired;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.identity.IdentityTokens;
import java.net.http.HttpRequest;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The tenant-environment admin API over HTTP in local mode (no cluster): desired state set, read, listed and
 * deleted; names, reserved namespaces and hostile labels refused with 400 problem details.
 */
@DatabaseTest
@AdminApiContext
class TenantEnvironmentAdminApiTest {

    static final String ADMIN = TestHttp.basic("root", "root-pw");
    static final String ALICE = TestHttp.basic("alice", "alice-pw");

    @LocalServerPort
    int port;

    @Autowired
    DesiredStateEvents events;

    @Autowired
    IdentityTokens identityTokens;

    @Autowired
    JdbcClient jdbc;

    TestHttp http;
    String tenant;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        tenant = "t" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void anAdminSetsReadsAndListsTheDesiredStateAndEachChangeIsAnnounced() {
        TestHttp.Response created = put(tenant + "/dev", """
                {"workerImage":"registry.example.com/worker:1.4","storageClass":"nfs-client","storageSize":"20Gi",
                 "resources":{"cpuRequest":"500m","memoryRequest":"1Gi","cpuLimit":"2","memoryLimit":"4Gi"},
                 "extraLabels":{"team":"blue","example.com/cost-centre":"42"}}
                """);
        assertThat(created.status()).isEqualTo(200);
        assertThat(created.json().path("namespace").asString()).isEqualTo(tenant + "-dev");
        assertThat(created.json().path("status").asString()).isEqualTo("PROVISIONING");
        assertThat(created.json().path("generation").asLong()).isEqualTo(1);
        assertThat(created.json().path("effectiveState").path("workerImage").asString())
                .isEqualTo("registry.example.com/worker:1.4");
        // Unset fields show the defaults they follow.
        assertThat(created.json()
                        .path("effectiveState")
                        .path("quota")
                        .path("pods")
                        .asInt())
                .isEqualTo(20);
        assertThat(created.json().path("desiredState").path("quota").isNull()).isTrue();

        TestHttp.Response fetched = http.get(path(tenant + "/dev"), "Authorization", ADMIN);
        assertThat(fetched.json()
                        .path("effectiveState")
                        .path("extraLabels")
                        .path("team")
                        .asString())
                .isEqualTo("blue");
        TestHttp.Response list = http.get("/api/admin/tenant-environments", "Authorization", ADMIN);
        assertThat(list.json().valueStream().map(node -> node.path("tenant").asString()))
                .contains(tenant);

        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, "dev");
        assertThat(events.seen).containsOnlyOnce(new DesiredStateChanged(id));
        // The same desired state again changes nothing and announces nothing.
        put(tenant + "/dev", created.json().path("desiredState").toString());
        assertThat(events.seen).containsOnlyOnce(new DesiredStateChanged(id));
        TestHttp.Response changed = put(tenant + "/dev", "{\"workerImage\":\"registry.example.com/worker:1.5\"}");
        assertThat(changed.json().path("generation").asLong()).isEqualTo(2);
        assertThat(events.seen)
                .filteredOn(event -> event.tenantEnvironment().equals(id))
                .hasSize(2);
    }

    @Test
    void podSettingsAreStoredShownWithTheDefaultsTheyFollowAndTheSameOnesAgainChangeNothing() {
        String body = """
                {"pod":{"nodeSelector":{"kubernetes.io/arch":"arm64"},"runtimeClassName":"gvisor",
                 "tolerations":[{"key":"sandbox","operator":"Exists","effect":"NoSchedule"}],
                 "affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,
                   "podAffinityTerm":{"topologyKey":"kubernetes.io/hostname"}}]}},
                 "probeTimeoutSeconds":4}}
                """;
        TestHttp.Response created = put(tenant + "/dev", body);
        assertThat(created.status()).isEqualTo(200);
        var effective = created.json().path("effectiveState").path("pod");
        assertThat(effective.path("runtimeClassName").asString()).isEqualTo("gvisor");
        assertThat(effective.path("nodeSelector").path("kubernetes.io/arch").asString())
                .isEqualTo("arm64");
        assertThat(effective.path("tolerations").get(0).path("key").asString()).isEqualTo("sandbox");
        assertThat(effective.path("probeTimeoutSeconds").asInt()).isEqualTo(4);
        // Unset fields follow the defaults (ProvisioningProperties.Defaults.pod).
        assertThat(effective.path("tmpSizeLimit").asString()).isEqualTo("1Gi");
        assertThat(created.json()
                                .path("desiredState")
                                .path("pod")
                                .path("tmpSizeLimit")
                                .isMissingNode()
                        || created.json()
                                .path("desiredState")
                                .path("pod")
                                .path("tmpSizeLimit")
                                .isNull())
                .isTrue();

        // Read back from the database (its own column): the same state again is no change.
        TestHttp.Response fetched = http.get(path(tenant + "/dev"), "Authorization", ADMIN);
        assertThat(fetched.json()
                        .path("desiredState")
                        .path("pod")
                        .path("affinity")
                        .path("podAntiAffinity")
                        .path("preferredDuringSchedulingIgnoredDuringExecution")
                        .get(0)
                        .path("weight")
                        .asInt())
                .isEqualTo(10);
        assertThat(put(tenant + "/dev", body).json().path("generation").asLong())
                .isEqualTo(1);
    }

    @Test
    void buildPlacementIsStoredInItsOwnColumnAndTheSameAgainChangesNothing() {
        String body = """
                {"buildPlacement":{"nodeSelector":{"pool":"acme-builds"},
                 "requiredNodeLabels":{"kubernetes.io/arch":["arm64"]},
                 "tolerations":[{"key":"tenant","operator":"Equal","value":"acme","effect":"NoSchedule"}]}}
                """;
        assertThat(put(tenant + "/dev", body).status()).isEqualTo(200);

        var stored = http.get(path(tenant + "/dev"), "Authorization", ADMIN)
                .json()
                .path("desiredState")
                .path("buildPlacement");
        assertThat(stored.path("nodeSelector").path("pool").asString()).isEqualTo("acme-builds");
        assertThat(stored.path("requiredNodeLabels")
                        .path("kubernetes.io/arch")
                        .get(0)
                        .asString())
                .isEqualTo("arm64");
        assertThat(stored.path("tolerations").get(0).path("value").asString()).isEqualTo("acme");
        // The previous release reads `spec` during a rolling update; the placement is not in it (V63).
        assertThat(jdbc.sql("select spec from tenant_environment_desired_state where tenant = ?")
                        .param(tenant)
                        .query(String.class)
                        .single())
                .doesNotContain("acme");
        assertThat(put(tenant + "/dev", body).json().path("generation").asLong())
                .isEqualTo(1);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"pod\":{\"runtimeClassName\":\"Kata Containers\"}}                  | pod.runtimeClassName",
                "{\"pod\":{\"tolerations\":[{\"key\":\"a\",\"effect\":\"Never\"}]}}  | pod.tolerations[0].effect",
                "{\"pod\":{\"affinity\":{\"nodeAfinity\":{}}}}                         | pod.affinity",
                "{\"pod\":{\"tmpSizeLimit\":\"-1Gi\"}}                                 | pod.tmpSizeLimit",
                "{\"pod\":{\"probeTimeoutSeconds\":600}}                                | pod.probeTimeoutSeconds",
                "{\"buildPlacement\":{\"tolerations\":[{\"key\":\"a\",\"effect\":\"Never\"}]}} | buildPlacement.tolerations[0].effect",
                "{\"buildPlacement\":{\"nodeSelector\":{\"bad key\":\"x\"}}}              | buildPlacement.nodeSelector",
                "{\"buildPlacement\":{\"requiredNodeLabels\":{\"zone\":[\"a b\"]}}}      | buildPlacement.requiredNodeLabels",
                "{\"buildPlacement\":{\"requiredNodeLabels\":{\"zone\":[]}}}             | buildPlacement.requiredNodeLabels",
                "{\"workerImage\":\"registry.example.com/worker:latest\"}                | workerImage"
            })
    void badPodSettingsAreRefusedWithAProblemNamingTheField(String body, String field) {
        TestHttp.Response refused = put(tenant + "/dev", body);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.json().path("type").asString())
                .isEqualTo("https://talkide.app/problems/invalid-desired-state");
        assertThat(refused.json().path("field").asString()).isEqualTo(field);
        assertThat(http.get(path(tenant + "/dev"), "Authorization", ADMIN).status())
                .isEqualTo(404);
    }

    @Test
    void anEmptyBodyMeansTheDefaults() {
        TestHttp.Response created = put(tenant + "/dev", null);
        assertThat(created.status()).isEqualTo(200);
        assertThat(created.json().path("effectiveState").path("storageSize").asString())
                .isEqualTo("10Gi");
    }

    @Test
    void deletingWithoutAClusterMarksItDeletedRevokesItsTokensAndAPutBringsItBack() {
        put(tenant + "/dev", "{}");
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, "dev");
        String token = identityTokens.issue(id).token();

        TestHttp.Response deleted = http.delete(path(tenant + "/dev"), "Authorization", ADMIN);

        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.json().path("status").asString()).isEqualTo("DELETED");
        assertThat(identityTokens.verify(token)).isEmpty();
        assertThat(http.get(path(tenant + "/dev"), "Authorization", ADMIN)
                        .json()
                        .path("status")
                        .asString())
                .isEqualTo("DELETED");
        assertThat(put(tenant + "/dev", "{}").json().path("status").asString()).isEqualTo("PROVISIONING");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Bad_Name/dev",
                "acme/DEV",
                "-acme/dev",
                "kube/system",
                "kube-x/dev",
                "talkide/prod",
                "averyveryveryveryveryverylongtenantname/andanequallylongenvironmentname"
            })
    void invalidAndReservedNamesAreRefusedWithProblemDetails(String name) {
        TestHttp.Response refused = put(name, "{}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.json().path("type").asString())
                .isIn(
                        "https://talkide.app/problems/invalid-tenant-environment-name",
                        "https://talkide.app/problems/reserved-namespace");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"extraLabels\":{\"app.kubernetes.io/managed-by\":\"me\"}}",
                "{\"extraLabels\":{\"talkide.app/tenant\":\"other\"}}",
                "{\"extraLabels\":{\"node.k8s.io/x\":\"y\"}}",
                "{\"extraLabels\":{\"bad key\":\"v\"}}",
                "{\"extraLabels\":{\"ok\":\"value with spaces\"}}",
                "{\"extraLabels\":{\"ok\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}",
                "{\"workerImage\":\"worker; rm -rf /\"}",
                "{\"storageSize\":\"lots\"}",
                "{\"storageSize\":\"0\"}",
                "{\"storageClass\":\"Not_A_Class\"}",
                "{\"resources\":{\"cpuRequest\":\"4\",\"memoryRequest\":\"1Gi\",\"cpuLimit\":\"2\",\"memoryLimit\":\"4Gi\"}}",
                "{\"quota\":{\"cpu\":\"8\",\"memory\":\"16Gi\",\"storage\":\"50Gi\",\"pods\":0,\"jobs\":1}}"
            })
    void hostileDesiredStatesAreRefusedBeforeTheyAreStored(String body) {
        TestHttp.Response refused = put(tenant + "/dev", body);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().path("type").asString())
                .isEqualTo("https://talkide.app/problems/invalid-desired-state");
        assertThat(http.get(path(tenant + "/dev"), "Authorization", ADMIN).status())
                .isEqualTo(404);
    }

    @Test
    void onlyAdminsMayUseIt() {
        assertThat(http.get("/api/admin/tenant-environments", "Authorization", ALICE)
                        .status())
                .isEqualTo(403);
        assertThat(http.get("/api/admin/tenant-environments").status()).isEqualTo(401);
    }

    private TestHttp.Response put(String name, String json) {
        HttpRequest.Builder request = http.request(path(name)).header("Authorization", ADMIN);
        if (json == null) {
            return http.send(request.PUT(HttpRequest.BodyPublishers.noBody()).build());
        }
        return http.send(request.header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    private static String path(String name) {
        return "/api/admin/tenant-environments/" + name;
    }
}
