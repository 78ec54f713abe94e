package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.helm.MonitoringChart;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.token.identity.IdentityTokenRotator;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The chart's provisioning alerts name only metrics the Kubernetes runtime really exports: a tenant-
 * environment is reconciled and its identity token rotated against fabric8's mock API server, then the
 * Prometheus registry is scraped.
 */
@DatabaseTest
class ProvisioningAlertMetricsTest extends MockClusterTest {

    @Autowired
    IdentityTokenRotator rotator;

    @Autowired
    PrometheusMeterRegistry prometheus;

    @Test
    void everyMetricTheProvisioningAlertsNameIsExported() {
        reconciler.reconcile(id);
        rotator.rotate(id);

        TreeSet<String> wanted = MonitoringChart.metricsOf("talkide-provisioning");
        assertThat(wanted).isNotEmpty();
        assertThat(MonitoringChart.seriesIn(prometheus.scrape())).containsAll(wanted);
    }
}
