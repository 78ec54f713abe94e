package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Expand/contract (docs/developing.md, "Migrations"): a release's migrations must work with the previous
 * release's code, because during a rolling update old and new replicas share one database and the new
 * schema is in place before the last old pod stops. So a migration only expands: new tables, new nullable
 * columns or ones with a default, new indexes. Dropping, renaming or retyping something, or making it NOT
 * NULL without a default, breaks the old code's queries; it belongs to a later release that no longer uses
 * it, and then goes into {@link #CONTRACTS} with the release that stopped using it.
 */
class MigrationsExpandOnlyTest {

    static final Path MIGRATIONS = Path.of("src", "main", "resources", "db", "migration");

    /** Migrations allowed to contract, by file name: each needs the release that stopped using what it removes. */
    static final List<String> CONTRACTS = List.of();

    private static final List<Pattern> CONTRACTING = List.of(
            Pattern.compile("\\bdrop\\s+(table|column|view)\\b"),
            Pattern.compile("\\brename\\s+(to|column)\\b"),
            Pattern.compile("\\balter\\s+column\\s+\\S+\\s+(set\\s+not\\s+null|type|set\\s+data\\s+type)\\b"),
            Pattern.compile(
                    "\\badd\\s+column\\s+(if\\s+not\\s+exists\\s+)?\\S+\\s+[^,;]*\\bnot\\s+null\\b(?![^,;]*\\bdefault\\b)"),
            Pattern.compile("\\btruncate\\b"));

    @Test
    void everyMigrationOnlyExpandsTheSchema() throws IOException {
        List<String> problems = new ArrayList<>();
        try (Stream<Path> files = Files.list(MIGRATIONS)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".sql")).sorted().toList()) {
                if (CONTRACTS.contains(file.getFileName().toString())) {
                    continue;
                }
                String sql = withoutComments(Files.readString(file)).toLowerCase(Locale.ROOT);
                for (Pattern pattern : CONTRACTING) {
                    var matcher = pattern.matcher(sql);
                    while (matcher.find()) {
                        problems.add(file.getFileName() + ": " + matcher.group());
                    }
                }
            }
        }
        assertThat(problems).as("contracting statements outside CONTRACTS").isEmpty();
    }

    @Test
    void theCheckCatchesWhatWouldBreakThePreviousReleasesQueries() {
        for (String contracting : List.of(
                "alter table conversation drop column title;",
                "ALTER TABLE conversation RENAME COLUMN title TO name;",
                "alter table conversation alter column title set not null;",
                "alter table conversation alter column title type text;",
                "alter table conversation add column owner varchar(10) not null;",
                "drop table worker_report;")) {
            assertThat(CONTRACTING.stream()
                            .anyMatch(p -> p.matcher(contracting.toLowerCase(Locale.ROOT))
                                    .find()))
                    .as(contracting)
                    .isTrue();
        }
        for (String expanding : List.of(
                "alter table conversation add column retention_days integer;",
                "alter table conversation add column kind varchar(10) not null default 'chat';",
                "create index conversation_by_owner on conversation (owner);")) {
            assertThat(CONTRACTING.stream()
                            .anyMatch(p -> p.matcher(expanding.toLowerCase(Locale.ROOT))
                                    .find()))
                    .as(expanding)
                    .isFalse();
        }
    }

    private static String withoutComments(String sql) {
        return sql.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("--[^\\n]*", " ");
    }
}
