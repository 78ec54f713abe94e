package app.talkide.controlplane.builds;

import app.talkide.controlplane.token.WorkerPrincipal;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/internal/worker/builds/{id}/logs}: the log of a build of the worker's conversation. The
 * stream ends when the WorkerToken expires; the worker reconnects with a fresh one and resumes by line id.
 */
@RestController
class BuildLogController {

    private final Builds builds;
    private final BuildLogStream stream;

    BuildLogController(Builds builds, BuildLogStream stream) {
        this.builds = builds;
        this.stream = stream;
    }

    @GetMapping("/api/internal/worker/builds/{id}/logs")
    void stream(
            @AuthenticationPrincipal WorkerPrincipal worker,
            @PathVariable UUID id,
            @RequestHeader(name = "Last-Event-ID", required = false) @Nullable String lastEventId,
            HttpServletResponse response)
            throws IOException, InterruptedException {
        builds.ownBuild(worker, id);
        stream.stream(id, lastEventId, worker.expiresAt(), () -> true, response);
    }
}
