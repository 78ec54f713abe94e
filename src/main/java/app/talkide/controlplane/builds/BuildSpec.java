package app.talkide.controlplane.builds;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A validated build request, as stored and as the Job builders read it.
 *
 * @param kind gradle or image
 * @param tasks Gradle tasks (gradle only)
 * @param arguments further Gradle arguments (gradle only)
 * @param dockerfile the Dockerfile, relative to the working tree (image only)
 * @param context the build context directory, relative to the working tree (image only)
 * @param destination the image reference to push to, inside the tenant's registry (image only)
 */
public record BuildSpec(
        BuildKind kind,
        List<String> tasks,
        List<String> arguments,
        @Nullable String dockerfile,
        @Nullable String context,
        @Nullable String destination) {

    public BuildSpec {
        tasks = List.copyOf(tasks);
        arguments = List.copyOf(arguments);
    }
}
