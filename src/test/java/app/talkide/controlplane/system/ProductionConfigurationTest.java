package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.ControlPlaneApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;

class ProductionConfigurationTest {

    @Test
    void productionRefusesToStartNamingEveryMissingSetting() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(ControlPlaneApplication.class)
                        .profiles("production")
                        .run("--server.port=0"))
                .isInstanceOf(MissingProductionConfigurationException.class)
                .hasMessageContaining("TALKIDE_DATABASE_URL")
                .hasMessageContaining("TALKIDE_MASTER_KEYS")
                .hasMessageContaining("TALKIDE_ACTIVE_KID")
                .hasMessageContaining("TALKIDE_OIDC_ISSUER_URI")
                .hasMessageContaining("TALKIDE_OIDC_AUDIENCE")
                .hasMessageContaining("ANTHROPIC_API_KEY");
    }

    @Test
    void productionNamesOnlyWhatIsStillMissing() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(ControlPlaneApplication.class)
                        .profiles("production")
                        .run(
                                "--server.port=0",
                                "--spring.datasource.url=jdbc:postgresql://db/talkide",
                                "--spring.datasource.username=talkide"))
                .isInstanceOfSatisfying(
                        MissingProductionConfigurationException.class,
                        e -> assertThat(e.missing())
                                .noneMatch(item -> item.contains("DATABASE"))
                                .anyMatch(item -> item.contains("TALKIDE_MASTER_KEYS")));
    }

    @Test
    void failureIsReportedAsAShortListNotAStackTrace() {
        var exception = new MissingProductionConfigurationException(java.util.List.of("TALKIDE_DATABASE_URL (x)"));
        FailureAnalysis analysis = new MissingProductionConfigurationFailureAnalyzer().analyze(exception);
        assertThat(analysis.getDescription()).contains("refuses to start").contains("- TALKIDE_DATABASE_URL (x)");
        assertThat(analysis.getAction()).contains("environment variables");
    }
}
