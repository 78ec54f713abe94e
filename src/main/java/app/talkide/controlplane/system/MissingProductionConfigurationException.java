package app.talkide.controlplane.system;

import java.util.List;

/** Production mode was asked for but settings it cannot run without are absent. */
class MissingProductionConfigurationException extends RuntimeException {

    private final List<String> missing;

    MissingProductionConfigurationException(List<String> missing) {
        super("Production mode is missing required configuration: " + String.join(", ", missing));
        this.missing = List.copyOf(missing);
    }

    List<String> missing() {
        return missing;
    }
}
