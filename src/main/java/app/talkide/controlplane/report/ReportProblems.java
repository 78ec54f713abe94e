package app.talkide.controlplane.report;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** The report feature's problem types, one per condition. */
final class ReportProblems {

    private ReportProblems() {}

    /** The body names another conversation than the WorkerToken is scoped to. */
    static final class ReportForAnotherConversation extends ProblemException {
        ReportForAnotherConversation() {
            super(
                    HttpStatus.FORBIDDEN,
                    "report-for-another-conversation",
                    "Report for another conversation",
                    "The report's conversationId is not the conversation this worker token is scoped to.");
        }
    }

    /** The same report id was sent before with a different body. */
    static final class ReportIdReused extends ProblemException {
        ReportIdReused(String id) {
            super(
                    HttpStatus.CONFLICT,
                    "report-id-reused",
                    "Report id reused",
                    "A different report with id '" + abbreviate(id) + "' was already stored for this conversation.");
        }
    }

    static final class UnknownReportKind extends ProblemException {
        UnknownReportKind() {
            super(
                    HttpStatus.BAD_REQUEST,
                    "unknown-report-kind",
                    "Unknown report kind",
                    "kind must be one of tool-events, usage, activity, issues.");
        }
    }

    private static String abbreviate(String id) {
        return id.length() > 60 ? id.substring(0, 60) + "…" : id;
    }
}
