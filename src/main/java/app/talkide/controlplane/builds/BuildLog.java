package app.talkide.controlplane.builds;

import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * A build's log, line by line: written by the leader as it reads the Job's pod, read by every replica's
 * log stream. Line numbers start at 1, so a follower that starts over (a new leader) skips what is stored.
 */
@Repository
public class BuildLog {

    /** Longer lines are cut here (the column's width), marked with an ellipsis. */
    static final int MAX_LINE = 4000;

    public record Line(int number, String content) {}

    private final JdbcClient jdbc;
    private final BuildProperties properties;

    BuildLog(JdbcClient jdbc, BuildProperties properties) {
        this.jdbc = jdbc;
        this.properties = properties;
    }

    public int lineCount(UUID buildId) {
        return jdbc.sql("select coalesce(max(line_no), 0) from build_log_line where build_id = :id")
                .param("id", buildId)
                .query(Integer.class)
                .single();
    }

    /**
     * Stores the lines numbered after what is stored; lines beyond {@code max-log-lines} are dropped and
     * one note says so.
     */
    @Transactional
    public void append(UUID buildId, List<String> lines) {
        int stored = lineCount(buildId);
        int limit = properties.maxLogLines();
        for (String line : lines) {
            if (stored > limit) {
                return;
            }
            String content = stored == limit ? "… log truncated after " + limit + " lines" : cut(line);
            stored++;
            jdbc.sql("insert into build_log_line (build_id, line_no, content) values (:id, :n, :c)")
                    .param("id", buildId)
                    .param("n", stored)
                    .param("c", content)
                    .update();
        }
    }

    public List<Line> after(UUID buildId, int afterLine, int limit) {
        return jdbc.sql("""
                        select line_no, content from build_log_line where build_id = :id and line_no > :after
                        order by line_no limit :limit
                        """)
                .param("id", buildId)
                .param("after", afterLine)
                .param("limit", limit)
                .query((rs, n) -> new Line(rs.getInt("line_no"), rs.getString("content")))
                .list();
    }

    private static String cut(String line) {
        return line.length() > MAX_LINE ? line.substring(0, MAX_LINE - 1) + "…" : line;
    }
}
