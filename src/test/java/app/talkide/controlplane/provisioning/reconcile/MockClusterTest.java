package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.AnotherReplicaLeads;
import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.MockApiRequests;
import app.talkide.controlplane.provisioning.MockCluster;
import app.talkide.controlplane.provisioning.ProvisioningApiCalls;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.provisioning.desired.DesiredStates;
import app.talkide.controlplane.provisioning.objects.NamespaceLimitsBuilder;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.identity.IdentityTokens;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * What the reconciler tests against fabric8's CRUD mock API server share: the mock client, the beans they
 * drive, the objects a tenant-environment owns, and a fresh tenant-environment with the default desired
 * state for every test. The reconciler is under test, not its schedule: this application must never lead,
 * so only the test calls {@link TenantEnvironmentReconciler#reconcile}. The subclasses that add no configuration
 * of their own share one mock server and one Spring context (and so one database), so a test finds its objects
 * by its own tenant-environment, never by what else the cluster or the database holds.
 */
@MockCluster
@SpringBootTest(
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.control-plane-namespace=talkide-prod",
            "talkide.provisioning.deprovision-timeout=1s",
            "talkide.provisioning.leader.lease-namespace=" + AnotherReplicaLeads.LEASE_NAMESPACE
        })
abstract class MockClusterTest {

    /** Everything the control plane creates inside the namespace, by kind and name, in creation order. */
    static final Map<Class<? extends HasMetadata>, String> OBJECTS = ownedObjects();

    static final List<Class<? extends HasMetadata>> KINDS = List.copyOf(OBJECTS.keySet());

    static KubernetesClient client;
    static KubernetesMockServer server;

    @Autowired
    TenantEnvironmentReconciler reconciler;

    @Autowired
    DesiredStates desiredStates;

    @Autowired
    TenantEnvironments tenantEnvironments;

    @Autowired
    IdentityTokens identityTokens;

    MockApiRequests requests;
    TenantEnvironmentId id;

    /** Every call the application made in this test is one the chart's RBAC grants (ChartRbacTest). */
    @AfterEach
    void everyCallIsGrantedByTheChart() {
        ProvisioningApiCalls.assertListed(requests.applicationCalls(), AnotherReplicaLeads.LEASE_NAMESPACE);
    }

    @BeforeEach
    void freshTenantEnvironment() {
        requests = new MockApiRequests(server);
        id = TenantEnvironmentId.of("t" + UUID.randomUUID().toString().substring(0, 8), "dev");
        desiredStates.put(id, DesiredStateSpec.DEFAULTS);
    }

    private static Map<Class<? extends HasMetadata>, String> ownedObjects() {
        Map<Class<? extends HasMetadata>, String> objects = new LinkedHashMap<>();
        objects.put(ResourceQuota.class, NamespaceLimitsBuilder.NAME);
        objects.put(LimitRange.class, NamespaceLimitsBuilder.NAME);
        objects.put(ServiceAccount.class, ManagedNames.WORKER);
        objects.put(Secret.class, ManagedNames.WORKER_SECRET);
        objects.put(PersistentVolumeClaim.class, ManagedNames.SESSIONS_VOLUME);
        objects.put(NetworkPolicy.class, ManagedNames.WORKER);
        objects.put(Service.class, ManagedNames.WORKER);
        objects.put(Deployment.class, ManagedNames.WORKER);
        return Collections.unmodifiableMap(objects);
    }
}
