package app.talkide.controlplane.builds;

import app.talkide.controlplane.conversation.ConversationAccess;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The console's view of a conversation's builds: the list (newest first) and each build's live log, so a
 * {@code run_build} tool card can show the log while the build runs. Only the conversation's owner, while
 * still a member of its tenant-environment ({@link ConversationAccess}); anyone else, and a build of
 * another conversation, gets 404.
 */
@RestController
class ConversationBuildController {

    private static final int MAX_LISTED = 50;

    private final ConversationAccess access;
    private final Builds builds;
    private final BuildLogStream stream;

    ConversationBuildController(ConversationAccess access, Builds builds, BuildLogStream stream) {
        this.access = access;
        this.builds = builds;
        this.stream = stream;
    }

    @GetMapping("/api/conversations/{id}/builds")
    List<BuildView> list(Principal user, @PathVariable UUID id, @RequestParam(defaultValue = "20") int limit) {
        access.readableBy(id, user.getName());
        return builds.ofConversation(id).stream()
                .limit(Math.clamp(limit, 1, MAX_LISTED))
                .map(builds::view)
                .toList();
    }

    @GetMapping("/api/conversations/{id}/builds/{buildId}/logs")
    void logs(
            Principal user,
            @PathVariable UUID id,
            @PathVariable UUID buildId,
            @RequestHeader(name = "Last-Event-ID", required = false) @Nullable String lastEventId,
            HttpServletResponse response)
            throws IOException, InterruptedException {
        access.readableBy(id, user.getName());
        builds.find(buildId)
                .filter(build -> build.conversationId().equals(id))
                .orElseThrow(BuildProblems.BuildNotFound::new);
        // A browser session has no fixed expiry here: the stream ends with the build, the connection, or the
        // reader's access (re-checked while it streams, so a removed member stops reading).
        stream.stream(buildId, lastEventId, null, () -> stillReadable(id, user.getName()), response);
    }

    private boolean stillReadable(UUID conversationId, String userId) {
        try {
            access.readableBy(conversationId, userId);
            return true;
        } catch (RuntimeException refused) {
            return false;
        }
    }
}
