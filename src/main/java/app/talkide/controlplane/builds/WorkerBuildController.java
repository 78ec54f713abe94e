package app.talkide.controlplane.builds;

import app.talkide.controlplane.token.WorkerPrincipal;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The worker's build API ({@code /api/internal/worker/builds}, WorkerToken verified by the token feature's
 * filter): a build belongs to the token's conversation. 202 when queued: the Job starts when a slot is free.
 */
@RestController
@RequestMapping("/api/internal/worker/builds")
class WorkerBuildController {

    private final Builds builds;

    WorkerBuildController(Builds builds) {
        this.builds = builds;
    }

    @PostMapping
    ResponseEntity<BuildView> start(
            @AuthenticationPrincipal WorkerPrincipal worker, @RequestBody BuildRequest request) {
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(builds.submit(worker, request));
    }

    @GetMapping("/{id}")
    BuildView get(@AuthenticationPrincipal WorkerPrincipal worker, @PathVariable UUID id) {
        return builds.get(worker, id);
    }

    @DeleteMapping("/{id}")
    BuildView cancel(@AuthenticationPrincipal WorkerPrincipal worker, @PathVariable UUID id) {
        return builds.cancel(worker, id);
    }
}
