package app.talkide.controlplane.builds;

import java.util.Locale;

/** What a build does: a Gradle invocation in the working tree, or an image built from a Dockerfile. */
public enum BuildKind {
    GRADLE,
    IMAGE;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
