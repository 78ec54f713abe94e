package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The requests the mock API server received since the last look, as "METHOD path" lines. It also keeps every
 * request the application's own client made (marked by {@link #CALLER_HEADER}), so a test can check them
 * against the permissions the chart grants.
 */
public final class MockApiRequests {

    /** Header the application's client sends in tests, so its calls can be told from the test's own. */
    public static final String CALLER_HEADER = "X-Test-Caller";

    private final List<String> applicationCalls = new ArrayList<>();

    private static final String LEADER_ELECTION_PATH = "/apis/coordination.k8s.io/";

    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final KubernetesMockServer server;

    /**
     * Starts from now: what the server recorded before (earlier tests and classes on a shared server) is drained
     * first, its application calls still kept for {@link #applicationCalls()}.
     */
    public MockApiRequests(KubernetesMockServer server) {
        this.server = server;
        drain();
    }

    /**
     * Drains what was recorded so far, leaving out the leader elector's Lease calls: they run on their own
     * schedule, so a test of what a reconcile pass sends would otherwise see one now and then. They still count
     * in {@link #applicationCalls()}.
     */
    public List<String> drain() {
        List<String> requests = new ArrayList<>();
        try {
            RecordedRequest request;
            while ((request = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
                String line = request.getMethod() + " " + request.getPath();
                if (!request.getPath().startsWith(LEADER_ELECTION_PATH)) {
                    requests.add(line);
                }
                if (request.getHeader(CALLER_HEADER) != null) {
                    applicationCalls.add(line);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return requests;
    }

    /** Every call the application's client made since this was created (drains what is pending first). */
    public List<String> applicationCalls() {
        drain();
        return List.copyOf(applicationCalls);
    }

    /** Drains and keeps only the create, update, patch and delete calls. */
    public List<String> writes() {
        return drain().stream()
                .filter(line -> WRITES.contains(line.substring(0, line.indexOf(' '))))
                .toList();
    }
}
