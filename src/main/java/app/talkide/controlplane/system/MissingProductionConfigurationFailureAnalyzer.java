package app.talkide.controlplane.system;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a missing production setting into a short startup report instead of a stack trace. */
class MissingProductionConfigurationFailureAnalyzer
        extends AbstractFailureAnalyzer<MissingProductionConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingProductionConfigurationException cause) {
        String list = "  - " + String.join("\n  - ", cause.missing());
        return new FailureAnalysis(
                "The control plane runs in production mode and refuses to start without:\n" + list,
                "Set the listed environment variables (the Helm chart wires them from Secrets), "
                        + "or run without SPRING_PROFILES_ACTIVE=production for local mode.",
                cause);
    }
}
