package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpecBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * Puts a Lease held by another replica for an hour in place, so an application started in a test never
 * leads: its scheduler, resync and rotation sweep stay idle and the test alone drives the reconciler.
 */
public final class AnotherReplicaLeads {

    public static final String LEASE_NAMESPACE = "test";
    public static final String LEASE_NAME = "talkide-control-plane-leader";

    private AnotherReplicaLeads() {}

    /**
     * The mock extension's client, but patient (its 10 s request timeout was exceeded on a loaded build
     * machine), with another replica leading: what a test that drives the reconciler itself starts from.
     * The caller closes it.
     */
    public static KubernetesClient patientFollower(KubernetesClient extensionClient) {
        KubernetesClient patient = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(extensionClient.getConfiguration())
                        .withRequestTimeout(60_000)
                        .build())
                .build();
        hold(patient);
        return patient;
    }

    public static void hold(KubernetesClient client) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        client.leases()
                .inNamespace(LEASE_NAMESPACE)
                .resource(new LeaseBuilder()
                        .withNewMetadata()
                        .withName(LEASE_NAME)
                        .withNamespace(LEASE_NAMESPACE)
                        .endMetadata()
                        .withSpec(new LeaseSpecBuilder()
                                .withHolderIdentity("another-replica")
                                .withLeaseDurationSeconds(3600)
                                .withAcquireTime(now)
                                .withRenewTime(now)
                                .withLeaseTransitions(0)
                                .build())
                        .build())
                .create();
    }
}
