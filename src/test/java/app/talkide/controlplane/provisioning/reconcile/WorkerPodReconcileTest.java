package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.AnotherReplicaLeads;
import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.WorkerPod;
import app.talkide.controlplane.provisioning.WorkerPodBinding;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The worker pod's placement, sandbox, local disk and probe timeout, from the chart's defaults and a
 * tenant-environment's own settings, as the provisioned Deployment carries them on fabric8's CRUD mock server;
 * a steady state writes nothing; settings taken out leave the pod; an unbound session volume shows.
 */
// Its own configuration (pod defaults, a clock), which no other class shares: closed after it to free its pool.
@DirtiesContext
@DatabaseTest
@Import(ClockTestConfiguration.class)
@SpringBootTest(
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.control-plane-namespace=talkide-prod",
            "talkide.provisioning.leader.lease-namespace=" + AnotherReplicaLeads.LEASE_NAMESPACE,
            // As the chart renders them (helm/…/_helpers.tpl): tolerations and affinity as JSON.
            "talkide.provisioning.defaults.pod.tolerations[0]="
                    + "{\"key\":\"sandbox\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}",
            "talkide.provisioning.defaults.pod.affinity={\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
                    + "Execution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"kubernetes.io/arch\","
                    + "\"operator\":\"In\",\"values\":[\"amd64\"]}]}]}}}",
            "talkide.provisioning.defaults.pod.runtime-class-name=gvisor",
            "talkide.provisioning.defaults.pod.node-selector[pool.example.com/agents]=true",
            "talkide.provisioning.session-volume-bind-timeout=2m"
        })
class WorkerPodReconcileTest extends MockClusterTest {

    @Autowired
    MutableClock clock;

    @Test
    void theChartDefaultsAndTheTenantsOwnSettingsReachThePodSpecAndASteadyStateWritesNothing() {
        WorkerPod own = new WorkerPod(
                List.of("registry-credentials"), null, null, null, "talkide-workers", null, "1Gi", "6Gi", "2Gi", 5);
        desiredStates.put(id, DesiredStateSpec.DEFAULTS.withPod(own));
        assertThat(reconciler.reconcile(id).degradedReason()).isNull();

        PodSpec pod = podSpec();
        // The tenant-environment's own settings ...
        assertThat(pod.getImagePullSecrets()).containsExactly(new LocalObjectReference("registry-credentials"));
        assertThat(pod.getPriorityClassName()).isEqualTo("talkide-workers");
        // ... and the configured defaults for what it left unset, field by field.
        assertThat(pod.getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(pod.getNodeSelector()).containsExactly(Map.entry("pool.example.com/agents", "true"));
        assertThat(pod.getTolerations())
                .extracting(Toleration::getKey, Toleration::getOperator, Toleration::getEffect)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("sandbox", "Exists", "NoSchedule"));
        assertThat(pod.getAffinity()
                        .getNodeAffinity()
                        .getRequiredDuringSchedulingIgnoredDuringExecution()
                        .getNodeSelectorTerms()
                        .get(0)
                        .getMatchExpressions()
                        .get(0)
                        .getKey())
                .isEqualTo("kubernetes.io/arch");
        Container worker = pod.getContainers().get(0);
        assertThat(worker.getResources().getRequests()).containsEntry("ephemeral-storage", new Quantity("1Gi"));
        assertThat(worker.getResources().getLimits()).containsEntry("ephemeral-storage", new Quantity("6Gi"));
        assertThat(List.of(worker.getStartupProbe(), worker.getLivenessProbe(), worker.getReadinessProbe()))
                .allSatisfy(probe -> assertThat(probe.getTimeoutSeconds()).isEqualTo(5));
        assertThat(pod.getVolumes())
                .filteredOn(volume -> volume.getEmptyDir() != null)
                .extracting(Volume::getName, volume -> volume.getEmptyDir().getSizeLimit())
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("tmp", new Quantity("2Gi")),
                        org.assertj.core.groups.Tuple.tuple("home", new Quantity("2Gi")));

        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();
    }

    @Test
    void aSizeLimitTheApiServerRewroteIsNoDrift() {
        reconciler.reconcile(id);
        // 1Gi and 1024Mi are the same quantity; a server that prints it differently must not cause a patch.
        client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .edit(live -> {
                    live.getSpec().getTemplate().getSpec().getVolumes().stream()
                            .filter(volume -> volume.getEmptyDir() != null)
                            .forEach(volume -> volume.getEmptyDir().setSizeLimit(new Quantity("1024Mi")));
                    return live;
                });
        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();
    }

    @Test
    void placementTakenOutOfTheDesiredStateLeavesThePodWithOnePatch() {
        reconciler.reconcile(id);
        assertThat(podSpec().getRuntimeClassName()).isEqualTo("gvisor");

        // Explicitly none: no node selector, no tolerations (an unset runtime class follows the default).
        desiredStates.put(
                id,
                DesiredStateSpec.DEFAULTS.withPod(
                        new WorkerPod(null, Map.of(), List.of(), null, null, null, null, null, null, null)));
        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isEqualTo(1);
        PodSpec pod = podSpec();
        assertThat(pod.getNodeSelector()).isNullOrEmpty();
        assertThat(pod.getTolerations()).isNullOrEmpty();
        // Taken out because the Deployment's record said they were ours (talkide.app/placement).
        assertThat(pod.getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(pod.getAffinity()).isNotNull();

        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isZero();
    }

    @Test
    void aTolerationAndANodeSelectorKeyAnAdmissionPolicyAddedCauseNoPatchAndSurviveARepair() {
        reconciler.reconcile(id);
        var deployment = client.apps().deployments().inNamespace(id.namespace()).withName(ManagedNames.WORKER);
        // What e.g. a Kyverno rule auto-generated for Deployments would add to the pod template.
        deployment.edit(live -> {
            var pod = live.getSpec().getTemplate().getSpec();
            pod.getNodeSelector().put("zone", "b");
            pod.getTolerations().add(WorkerPodBinding.toleration("{\"key\":\"spot\",\"operator\":\"Exists\"}"));
            return live;
        });
        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();

        // A repair of something else keeps them, and puts back ours.
        deployment.edit(live -> {
            var pod = live.getSpec().getTemplate().getSpec();
            pod.getTolerations().removeIf(toleration -> "sandbox".equals(toleration.getKey()));
            pod.setRuntimeClassName(null);
            return live;
        });
        assertThat(reconciler.reconcile(id).writes()).isEqualTo(1);
        PodSpec pod = podSpec();
        assertThat(pod.getNodeSelector()).containsEntry("zone", "b").containsEntry("pool.example.com/agents", "true");
        assertThat(pod.getTolerations()).extracting(Toleration::getKey).containsExactlyInAnyOrder("spot", "sandbox");
        assertThat(pod.getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(reconciler.reconcile(id).writes()).isZero();
    }

    @Test
    void aSessionVolumeThatStaysPendingShowsAsDegradedAfterTheBoundedWaitAndRecoversOnceBound() {
        reconciler.reconcile(id);
        setClaimPhase("Pending");

        reconciler.reconcile(id);
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.PROVISIONING);

        clock.advance(Duration.ofMinutes(3));
        requests.drain();
        assertThat(reconciler.reconcile(id).degradedReason()).startsWith("session-volume-unbound:");
        assertThat(requests.writes())
                .as("reporting it writes nothing to the cluster")
                .isEmpty();
        var environment = tenantEnvironments.get(id);
        assertThat(environment.status()).isEqualTo(TenantEnvironmentStatus.DEGRADED);
        assertThat(environment.statusReason())
                .startsWith("session-volume-unbound:")
                .contains("ReadWriteMany")
                .contains("kubectl -n " + id.namespace() + " describe pvc claude-sessions");

        setClaimPhase("Bound");
        assertThat(reconciler.reconcile(id).degradedReason()).isNull();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.PROVISIONING);
    }

    private void setClaimPhase(String phase) {
        var claim = client.persistentVolumeClaims()
                .inNamespace(id.namespace())
                .withName(ManagedNames.SESSIONS_VOLUME)
                .get();
        claim.setStatus(
                new PersistentVolumeClaimStatusBuilder().withPhase(phase).build());
        client.resource(claim).updateStatus();
    }

    private PodSpec podSpec() {
        return client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .get()
                .getSpec()
                .getTemplate()
                .getSpec();
    }
}
