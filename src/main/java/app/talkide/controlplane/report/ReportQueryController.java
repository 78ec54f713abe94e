package app.talkide.controlplane.report;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.security.Principal;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reading reports: the owner of a conversation ({@code /api/conversations/{id}/reports}, anyone else gets
 * 404) and operators ({@code /api/admin/reports}, role ADMIN by the security chain). Paged by
 * {@code after} = the last {@code seq} seen.
 */
@RestController
class ReportQueryController {

    private final WorkerReports reports;

    ReportQueryController(WorkerReports reports) {
        this.reports = reports;
    }

    @GetMapping("/api/conversations/{id}/reports")
    List<StoredReport> ofConversation(
            Principal user,
            @PathVariable UUID id,
            @RequestParam(required = false) @Nullable String kind,
            @RequestParam(defaultValue = "0") @Min(0) long after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return reports.ofOwnConversation(user.getName(), id, kind(kind), after, limit);
    }

    @GetMapping("/api/admin/reports")
    List<StoredReport> search(
            @RequestParam(required = false) @Nullable String tenant,
            @RequestParam(required = false) @Nullable String env,
            @RequestParam(required = false) @Nullable UUID conversationId,
            @RequestParam(required = false) @Nullable String kind,
            @RequestParam(defaultValue = "0") @Min(0) long after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return reports.search(tenant, env, conversationId, kind(kind), after, limit);
    }

    private static @Nullable ReportKind kind(@Nullable String slug) {
        if (slug == null || slug.isBlank()) {
            return null;
        }
        return ReportKind.ofSlug(slug).orElseThrow(ReportProblems.UnknownReportKind::new);
    }
}
