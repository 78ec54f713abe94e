package app.talkide.controlplane.builds;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /api/internal/worker/builds}, checked field by field into a {@link BuildSpec}.
 * Everything here ends up as container arguments (never a shell line), but paths must stay inside the
 * working tree and the destination inside the tenant's registry.
 */
public record BuildRequest(
        @Nullable String kind,
        @Nullable List<String> tasks,
        @Nullable List<String> arguments,
        @Nullable String dockerfile,
        @Nullable String context,
        @Nullable String destination) {

    private static final Pattern TASK = Pattern.compile("[A-Za-z0-9][A-Za-z0-9:_.\\-]{0,199}");
    private static final Pattern PATH = Pattern.compile("[A-Za-z0-9_.\\-/]{1,300}");
    private static final Pattern IMAGE_REF = Pattern.compile("[a-z0-9][a-z0-9._\\-/:@]{0,250}");
    // What follows the tenant-environment's prefix: repository path components as the distribution
    // spec's grammar has them (no empty, '.' or '..' component), then an optional tag and digest.
    private static final String COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    private static final Pattern REPOSITORY = Pattern.compile(COMPONENT + "(?:/" + COMPONENT + ")*"
            + "(?::[A-Za-z0-9_][A-Za-z0-9_.\\-]{0,127})?(?:@sha256:[a-f0-9]{64})?");

    public BuildSpec validate(String tenant, String env, BuildProperties.Image image) {
        if (kind == null) {
            throw invalid("kind is required: gradle or image.");
        }
        return switch (kind.toLowerCase(Locale.ROOT)) {
            case "gradle" -> gradle();
            case "image" -> image(tenant, env, image);
            default -> throw invalid("kind must be gradle or image.");
        };
    }

    private BuildSpec gradle() {
        List<String> taskList = Objects.requireNonNullElse(tasks, List.of());
        List<String> argumentList = Objects.requireNonNullElse(arguments, List.of());
        if (taskList.isEmpty() || taskList.size() > 20) {
            throw invalid("tasks: between 1 and 20 Gradle tasks, e.g. [\"test\"].");
        }
        for (String task : taskList) {
            if (task == null || !TASK.matcher(task).matches()) {
                throw invalid("tasks: each is a Gradle task name or path (letters, digits, ':', '_', '.', '-').");
            }
        }
        if (argumentList.size() > 50) {
            throw invalid("arguments: at most 50.");
        }
        for (String argument : argumentList) {
            if (argument == null || argument.isEmpty() || argument.length() > 500 || hasControl(argument)) {
                throw invalid("arguments: each 1 to 500 characters without control characters.");
            }
        }
        if (dockerfile != null || destination != null || context != null) {
            throw invalid("dockerfile, context and destination belong to image builds.");
        }
        return new BuildSpec(BuildKind.GRADLE, taskList, argumentList, null, null, null);
    }

    private BuildSpec image(String tenant, String env, BuildProperties.Image image) {
        if (tasks != null || arguments != null) {
            throw invalid("tasks and arguments belong to gradle builds.");
        }
        String file = Objects.requireNonNullElse(dockerfile, "Dockerfile");
        String dir = Objects.requireNonNullElse(context, ".");
        requireInsideTree("dockerfile", file);
        requireInsideTree("context", dir);
        // The prefix names both the tenant and the env and ends in '/' (BuildProperties.Image checks), so
        // acme/dev can push neither over acme/prod's images nor under acme-corp.
        String prefix = image.registryPrefix(tenant, env);
        if (destination == null || !IMAGE_REF.matcher(destination).matches()) {
            throw invalid("destination: an image reference such as " + prefix + "app:1.");
        }
        if (!destination.startsWith(prefix)
                || !REPOSITORY.matcher(destination.substring(prefix.length())).matches()) {
            throw invalid("destination must be inside this tenant-environment's registry: " + prefix + "…");
        }
        return new BuildSpec(BuildKind.IMAGE, List.of(), List.of(), file, dir, destination);
    }

    private static void requireInsideTree(String field, String path) {
        boolean escapes = path.startsWith("/") || List.of(path.split("/")).contains("..");
        if (!PATH.matcher(path).matches() || escapes) {
            throw invalid(field + " must be a relative path inside the working tree.");
        }
    }

    private static boolean hasControl(String text) {
        return text.chars().anyMatch(Character::isISOControl);
    }

    private static BuildProblems.InvalidBuildRequest invalid(String detail) {
        return new BuildProblems.InvalidBuildRequest(detail);
    }
}
