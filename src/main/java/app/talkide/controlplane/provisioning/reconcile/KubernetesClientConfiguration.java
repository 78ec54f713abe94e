package app.talkide.controlplane.provisioning.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The fabric8 client for the cluster the control plane runs in: in-cluster service-account credentials, or
 * the kubeconfig / {@code KUBERNETES_*} environment outside. Only with the {@code kubernetes} worker runtime.
 * Tests and benchmarks put the mock server's client in its place.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
class KubernetesClientConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KubernetesClient kubernetesClient() {
        return FieldManager.install(new KubernetesClientBuilder()).build();
    }
}
