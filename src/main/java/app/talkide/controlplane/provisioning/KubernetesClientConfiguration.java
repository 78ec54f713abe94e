package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Kubernetes client in {@code kubernetes} mode: in a pod, its ServiceAccount and the in-cluster API
 * server; elsewhere, the kubeconfig. Tests and benchmarks supply their own (the mock server's).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
class KubernetesClientConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KubernetesClient kubernetesClient() {
        return new KubernetesClientBuilder().build();
    }
}
