package app.talkide.controlplane.provisioning.desired;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * {@code a-b/c} and {@code a/b-c} would both be the Kubernetes namespace {@code a-b-c}: the second name is
 * refused with a 409 problem, also when both are created at the same moment (the database's unique index on
 * the namespace decides, so it holds across replicas).
 */
@DatabaseTest
@AdminApiContext
class NamespaceCollisionTest {

    static final String ADMIN = TestHttp.basic("root", "root-pw");

    @LocalServerPort
    int port;

    TestHttp http;
    String prefix;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        prefix = "n" + UUID.randomUUID().toString().substring(0, 6);
    }

    @Test
    void aSecondNameForTheSameNamespaceIsAConflictProblemNamingTheFirst() {
        String first = prefix + "-b/c";
        String second = prefix + "/b-c";
        assertThat(put(first).status()).isEqualTo(200);

        TestHttp.Response refused = put(second);

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.json().get("type").asString()).isEqualTo("https://talkide.app/problems/namespace-taken");
        assertThat(refused.json().get("detail").asString())
                .contains("'" + prefix + "-b-c'")
                .contains("'" + first + "'");
        assertThat(http.get(path(second), "Authorization", ADMIN).status()).isEqualTo(404);
        assertThat(put(first).status()).as("the first name stays idempotent").isEqualTo(200);
    }

    @Test
    void aDeletedTenantEnvironmentKeepsItsNamespaceSoItsNameCanComeBack() {
        String first = prefix + "-b/c";
        assertThat(put(first).status()).isEqualTo(200);
        assertThat(http.delete(path(first), "Authorization", ADMIN).status()).isEqualTo(200);

        assertThat(put(prefix + "/b-c").status()).isEqualTo(409);
        assertThat(put(first).status()).isEqualTo(200);
    }

    @Test
    void ofTwoNamesRacingForOneNamespaceExactlyOneWinsAndTheOtherGetsTheConflict() throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int round = 0; round < 8; round++) {
                String[] names = {prefix + "-r" + round + "/c", prefix + "/r" + round + "-c"};
                CyclicBarrier start = new CyclicBarrier(names.length);
                List<Future<TestHttp.Response>> answers = new ArrayList<>();
                for (String name : names) {
                    answers.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return put(name);
                    }));
                }
                List<Integer> statuses = new ArrayList<>();
                for (Future<TestHttp.Response> answer : answers) {
                    TestHttp.Response response = answer.get(30, TimeUnit.SECONDS);
                    statuses.add(response.status());
                    if (response.status() == 409) {
                        assertThat(response.json().get("type").asString()).endsWith("/namespace-taken");
                    }
                }
                assertThat(statuses).as("round " + round).containsExactlyInAnyOrder(200, 409);
                long registered = java.util.Arrays.stream(names)
                        .filter(name ->
                                http.get(path(name), "Authorization", ADMIN).status() == 200)
                        .count();
                assertThat(registered).as("round " + round).isEqualTo(1);
            }
        }
    }

    private TestHttp.Response put(String name) {
        return http.put(path(name), "Authorization", ADMIN);
    }

    private static String path(String name) {
        return "/api/admin/tenant-environments/" + name;
    }
}
