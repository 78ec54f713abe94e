package app.talkide.controlplane.report;

import app.talkide.controlplane.token.WorkerPrincipal;
import jakarta.validation.Valid;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Where workers report ({@code /api/internal/worker/*}, WorkerToken already verified by the token
 * feature's filter). 201 when stored, 200 when the same report was stored before.
 */
@RestController
@RequestMapping("/api/internal/worker")
class WorkerReportController {

    private final WorkerReports reports;

    WorkerReportController(WorkerReports reports) {
        this.reports = reports;
    }

    @PostMapping("/tool-events")
    ResponseEntity<StoredReport> toolEvent(
            @AuthenticationPrincipal WorkerPrincipal worker, @Valid @RequestBody ReportBodies.ToolEvent report) {
        return answer(reports.record(worker, ReportKind.TOOL_EVENT, report));
    }

    @PostMapping("/usage")
    ResponseEntity<StoredReport> usage(
            @AuthenticationPrincipal WorkerPrincipal worker, @Valid @RequestBody ReportBodies.Usage report) {
        return answer(reports.record(worker, ReportKind.USAGE, report));
    }

    @PostMapping("/activity")
    ResponseEntity<StoredReport> activity(
            @AuthenticationPrincipal WorkerPrincipal worker, @Valid @RequestBody ReportBodies.Activity report) {
        return answer(reports.record(worker, ReportKind.ACTIVITY, report));
    }

    @PostMapping("/issues")
    ResponseEntity<StoredReport> issue(
            @AuthenticationPrincipal WorkerPrincipal worker, @Valid @RequestBody ReportBodies.Issue report) {
        return answer(reports.record(worker, ReportKind.ISSUE, report));
    }

    private static ResponseEntity<StoredReport> answer(WorkerReports.Recorded recorded) {
        return ResponseEntity.status(recorded.created() ? HttpStatus.CREATED : HttpStatus.OK)
                .body(recorded.report());
    }
}
