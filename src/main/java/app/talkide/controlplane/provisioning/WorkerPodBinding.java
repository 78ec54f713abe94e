package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.converter.Converter;

/**
 * Lets {@code talkide.provisioning.defaults.pod.affinity} and each entry of {@code …tolerations} be given as
 * JSON, the way the Helm chart renders them: Spring's relaxed binding would split the dotted label keys inside
 * an affinity ({@code app.kubernetes.io/name}) into nested properties. Parsed by fabric8 itself, so an
 * unknown field lands where the validator finds and refuses it.
 */
@Configuration(proxyBeanMethods = false)
public class WorkerPodBinding {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @Bean
    @ConfigurationPropertiesBinding
    static Converter<String, Affinity> affinityFromJson() {
        return WorkerPodBinding::affinity;
    }

    @Bean
    @ConfigurationPropertiesBinding
    static Converter<String, Toleration> tolerationFromJson() {
        return WorkerPodBinding::toleration;
    }

    public static Affinity affinity(String json) {
        return JSON.unmarshal(json, Affinity.class);
    }

    public static Toleration toleration(String json) {
        return JSON.unmarshal(json, Toleration.class);
    }
}
