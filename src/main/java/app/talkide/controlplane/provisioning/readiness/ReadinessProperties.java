package app.talkide.controlplane.provisioning.readiness;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How workers are found and their readiness observed in {@code kubernetes} mode.
 *
 * @param serviceDomain the cluster's DNS suffix: a worker answers at
 *     {@code http://talkide-worker.{namespace}.svc.{service-domain}:8080}
 * @param informerResync how often the Deployment informer re-delivers its cache to the handlers (a
 *     safety net; changes arrive through the watch at once)
 */
@Validated
@ConfigurationProperties("talkide.provisioning.readiness")
public record ReadinessProperties(
        @NotBlank @DefaultValue("cluster.local") String serviceDomain,
        @NotNull @DefaultValue("10m") Duration informerResync) {}
