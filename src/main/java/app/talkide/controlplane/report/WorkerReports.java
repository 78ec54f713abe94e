package app.talkide.controlplane.report;

import app.talkide.controlplane.conversation.ConversationAccess;
import app.talkide.controlplane.token.WorkerPrincipal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import tools.jackson.databind.json.JsonMapper;

/**
 * Stores worker reports exactly once and reads them back. A report is accepted only for the conversation
 * the caller's WorkerToken is scoped to; the same id sent again with the same body is the same report
 * (answered, not stored twice), with another body it is refused.
 */
@Service
public class WorkerReports {

    /** The outcome of recording: the stored report, and whether this call stored it. */
    record Recorded(StoredReport report, boolean created) {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final WorkerReportRepository repository;
    private final ConversationAccess access;
    private final Clock clock;

    WorkerReports(WorkerReportRepository repository, ConversationAccess access, Clock clock) {
        this.repository = repository;
        this.access = access;
        this.clock = clock;
    }

    Recorded record(WorkerPrincipal worker, ReportKind kind, WorkerReport report) {
        if (!worker.actsFor(report.conversationId())) {
            throw new ReportProblems.ReportForAnotherConversation();
        }
        String payload = JSON.writeValueAsString(report);
        String hash = sha256(payload);
        StoredReport stored = new StoredReport(
                0,
                report.id(),
                kind.slug(),
                report.conversationId(),
                worker.tenantEnvironment().tenant(),
                worker.tenantEnvironment().env(),
                worker.userId(),
                report.occurredAt(),
                clock.instant(),
                JSON.readTree(payload));
        try {
            repository.insert(stored, payload, hash);
        } catch (DuplicateKeyException repeated) {
            return new Recorded(existing(report, kind, hash), false);
        }
        return new Recorded(
                repository
                        .find(report.conversationId(), kind.slug(), report.id())
                        .orElseThrow()
                        .report(),
                true);
    }

    private StoredReport existing(WorkerReport report, ReportKind kind, String hash) {
        WorkerReportRepository.Row row = repository
                .find(report.conversationId(), kind.slug(), report.id())
                .orElseThrow();
        if (!row.payloadSha256().equals(hash)) {
            throw new ReportProblems.ReportIdReused(report.id());
        }
        return row.report();
    }

    /**
     * The reports of one of the user's own conversations in a tenant-environment they still belong to;
     * 404 for anyone else's (see {@link ConversationAccess}).
     */
    public List<StoredReport> ofOwnConversation(
            String userId, UUID conversationId, @Nullable ReportKind kind, long after, int limit) {
        access.readableBy(conversationId, userId);
        return repository.byConversation(conversationId, kind == null ? null : kind.slug(), after, limit);
    }

    /** Reports across conversations, for operators. */
    public List<StoredReport> search(
            @Nullable String tenant,
            @Nullable String env,
            @Nullable UUID conversationId,
            @Nullable ReportKind kind,
            long after,
            int limit) {
        return repository.search(tenant, env, conversationId, kind == null ? null : kind.slug(), after, limit);
    }

    private static String sha256(String payload) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(payload.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is unavailable", e);
        }
    }
}
