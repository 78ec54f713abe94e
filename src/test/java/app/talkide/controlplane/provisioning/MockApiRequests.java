package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** The requests the mock API server received since the last look, as "METHOD path" lines. */
public final class MockApiRequests {

    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final KubernetesMockServer server;

    public MockApiRequests(KubernetesMockServer server) {
        this.server = server;
    }

    /** Drains what was recorded so far. */
    public List<String> drain() {
        List<String> requests = new ArrayList<>();
        try {
            RecordedRequest request;
            while ((request = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
                requests.add(request.getMethod() + " " + request.getPath());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return requests;
    }

    /** Drains and keeps only the create, update, patch and delete calls. */
    public List<String> writes() {
        return drain().stream()
                .filter(line -> WRITES.contains(line.substring(0, line.indexOf(' '))))
                .toList();
    }
}
