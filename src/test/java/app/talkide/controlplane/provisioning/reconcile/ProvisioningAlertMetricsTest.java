package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.helm.MonitoringChart;
import app.talkide.controlplane.provisioning.AnotherReplicaLeads;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.token.identity.IdentityTokenRotator;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The chart's provisioning alerts name only metrics the Kubernetes runtime really exports: a tenant-
 * environment is reconciled and its identity token rotated against fabric8's mock API server, then the
 * Prometheus registry is scraped.
 */
// Stays: this class's mock API server stops after it, leaving the context bound to a dead cluster.
@DirtiesContext
@DatabaseTest
@SpringBootTest(
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.control-plane-namespace=talkide-prod",
            "talkide.provisioning.leader.lease-namespace=" + AnotherReplicaLeads.LEASE_NAMESPACE
        })
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
