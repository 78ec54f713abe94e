package app.talkide.controlplane.report;

import java.util.Arrays;
import java.util.Optional;

/** The four report kinds; {@code slug} is both the endpoint name and the {@code kind} query value. */
public enum ReportKind {
    TOOL_EVENT("tool-events"),
    USAGE("usage"),
    ACTIVITY("activity"),
    ISSUE("issues");

    private final String slug;

    ReportKind(String slug) {
        this.slug = slug;
    }

    public String slug() {
        return slug;
    }

    static Optional<ReportKind> ofSlug(String slug) {
        return Arrays.stream(values()).filter(kind -> kind.slug.equals(slug)).findFirst();
    }
}
