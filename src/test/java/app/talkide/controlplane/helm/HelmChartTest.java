package app.talkide.controlplane.helm;

import static app.talkide.controlplane.helm.RenderedChart.API_KEY;
import static app.talkide.controlplane.helm.RenderedChart.CHART;
import static app.talkide.controlplane.helm.RenderedChart.at;
import static app.talkide.controlplane.helm.RenderedChart.env;
import static app.talkide.controlplane.helm.RenderedChart.envFromSecret;
import static app.talkide.controlplane.helm.RenderedChart.kinds;
import static app.talkide.controlplane.helm.RenderedChart.only;
import static app.talkide.controlplane.helm.RenderedChart.render;
import static app.talkide.controlplane.helm.RenderedChart.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.io.ByteArrayResource;
import org.yaml.snakeyaml.Yaml;

/** The Helm chart, linted and rendered in-process (helm-java), as `helm lint` and `helm template` would. */
class HelmChartTest {

    @Test
    void chartLintsCleanlyInStrictMode() {
        LintResult result = new Helm(CHART).lint().strict().call();
        assertThat(result.isFailed())
                .as(String.join("\n", result.getMessages()))
                .isFalse();
    }

    @Test
    void productionDeploymentRunsNonRootReadOnlyWithSecretsFromSecrets() {
        List<Map<String, Object>> objects = render(UnaryOperator.identity());
        Map<String, Object> deployment = only(objects, "Deployment");
        Map<String, Object> container = at(deployment, "spec.template.spec.containers[0]");

        assertThat(text(deployment, "spec.replicas")).isEqualTo("2");
        assertThat(env(container)).containsEntry("SPRING_PROFILES_ACTIVE", "production");
        assertThat(at(container, "securityContext.readOnlyRootFilesystem").toString())
                .isEqualTo("true");
        assertThat(at(container, "securityContext.allowPrivilegeEscalation").toString())
                .isEqualTo("false");
        assertThat(text(container, "securityContext.capabilities.drop")).isEqualTo("[ALL]");
        assertThat(at(deployment, "spec.template.spec.securityContext.runAsNonRoot")
                        .toString())
                .isEqualTo("true");
        assertThat(text(container, "readinessProbe.httpGet.path")).isEqualTo("/actuator/health/readiness");
        assertThat(text(container, "livenessProbe.httpGet.port")).isEqualTo("management");
        // Secrets reach the pod only as secretKeyRefs, never as literal values in the Deployment.
        assertThat(new Yaml().dump(deployment)).doesNotContain(API_KEY);
        assertThat(envFromSecret(container))
                .containsKeys(
                        "ANTHROPIC_API_KEY", "TALKIDE_MASTER_KEYS", "TALKIDE_ACTIVE_KID", "TALKIDE_DATABASE_PASSWORD");
    }

    @Test
    void ingressKeepsServerSentEventsUnbuffered() {
        Map<String, Object> ingress = only(render(UnaryOperator.identity()), "Ingress");
        Map<String, Object> annotations = at(ingress, "metadata.annotations");
        assertThat(annotations)
                .containsEntry("nginx.ingress.kubernetes.io/proxy-buffering", "off")
                .containsEntry("nginx.ingress.kubernetes.io/proxy-read-timeout", "3600");
        assertThat(text(ingress, "spec.rules[0].http.paths[0].backend.service.port.name"))
                .isEqualTo("http");
    }

    @Test
    void provisioningSettingsBind() throws Exception {
        List<Map<String, Object>> objects = render(t -> t.set("provisioning.storageClass", "nfs-client"));
        Map<String, Object> data = at(only(objects, "ConfigMap"), "data");
        String applicationYaml = (String) data.get("application.yaml");
        var sources = new YamlPropertySourceLoader()
                .load("chart", new ByteArrayResource(applicationYaml.getBytes(StandardCharsets.UTF_8)));
        ProvisioningProperties provisioning = new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate("talkide.provisioning", ProvisioningProperties.class);
        assertThat(provisioning.controlPlaneNamespace()).isEqualTo("talkide-prod");
        Map<String, Object> selector = at(only(objects, "Deployment"), "spec.selector.matchLabels");
        assertThat(provisioning.controlPlanePodLabels()).isEqualTo(selector);
        assertThat(provisioning.gatewayBaseUrl())
                .hasToString("http://talkide-talkide-control-plane.talkide-prod.svc.cluster.local:8080");
        assertThat(provisioning.defaults().storageClass()).isEqualTo("nfs-client");
    }

    @Test
    void buildSettingsBindWithThePlacementOfTheBuildNodePool() throws Exception {
        List<Map<String, Object>> objects = render(t -> t.set("builds.enabled", true)
                .set("builds.nodeSelector.pool", "builds")
                .set("builds.tolerations[0].key", "talkide.app/builds")
                .set("builds.tolerations[0].value", "true")
                .set("builds.tolerations[0].effect", "NoSchedule"));
        BuildProperties builds = bindBuilds(objects);
        assertThat(builds.enabled()).isTrue();
        assertThat(builds.placement().nodeSelector()).containsEntry("pool", "builds");
        assertThat(builds.placement().tolerations()).singleElement().satisfies(t -> {
            assertThat(t.key()).isEqualTo("talkide.app/builds");
            assertThat(t.operator()).isEqualTo("Equal");
            assertThat(t.effect()).isEqualTo("NoSchedule");
        });
        BuildProperties off = bindBuilds(render(UnaryOperator.identity()));
        assertThat(off.enabled()).isFalse();
        assertThat(off.placement().nodeSelector()).isEmpty();
    }

    private static BuildProperties bindBuilds(List<Map<String, Object>> objects) throws Exception {
        Map<String, Object> data = at(only(objects, "ConfigMap"), "data");
        String applicationYaml = (String) data.get("application.yaml");
        var sources = new YamlPropertySourceLoader()
                .load("chart", new ByteArrayResource(applicationYaml.getBytes(StandardCharsets.UTF_8)));
        return new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate("talkide.builds", BuildProperties.class);
    }

    @Test
    void provisioningOffMeansNoClusterWidePermissions() {
        List<Map<String, Object>> objects = render(t -> t.set("provisioning.enabled", false));
        assertThat(kinds(objects)).doesNotContain("ClusterRole", "ClusterRoleBinding", "ValidatingAdmissionPolicy");
    }

    @Test
    void optionalObjectsFollowTheirSwitches() {
        assertThat(kinds(render(UnaryOperator.identity())))
                .contains("PodDisruptionBudget", "NetworkPolicy", "Service", "ConfigMap", "Secret", "ServiceAccount")
                .doesNotContain("ServiceMonitor");
        List<Map<String, Object>> withMonitor = render(t -> t.set("serviceMonitor.enabled", true));
        assertThat((String) at(only(withMonitor, "ServiceMonitor"), "spec.endpoints[0].path"))
                .isEqualTo("/actuator/prometheus");
        assertThat(kinds(render(t -> t.set("ingress.enabled", false)))).doesNotContain("Ingress");
    }

    @Test
    void existingSecretsReplaceTheChartsOwnSecret() {
        List<Map<String, Object>> objects = render(t -> t.set("database.existingSecret", "db")
                .set("anthropic.existingSecret", "anthropic")
                .set("masterKeys.existingSecret", "keys"));
        assertThat(kinds(objects)).doesNotContain("Secret");
        assertThat(new Yaml().dump(only(objects, "Deployment")))
                .contains("name: anthropic")
                .contains("name: keys");
    }

    @Test
    void missingRequiredValuesFailTheRenderWithAClearMessage() {
        assertThatThrownBy(() -> new Helm(CHART).template().withName("talkide").call())
                .hasMessageContaining("is required");
        assertThatThrownBy(() -> render(t -> t.set("database.url", "")))
                .hasMessageContaining("database.url is required");
        assertThatThrownBy(() -> render(t -> t.set("oidc.issuerUri", "")))
                .hasMessageContaining("oidc.issuerUri is required");
        assertThatThrownBy(() -> render(t -> t.set("oidc.audience", "")))
                .hasMessageContaining("oidc.audience is required");
    }

    @Test
    void schemaRejectsValuesOfTheWrongShape() {
        assertThatThrownBy(() -> render(t -> t.set("replicaCount", "two"))).hasMessageContaining("replicaCount");
        assertThatThrownBy(() -> render(t -> t.set("database.url", "mysql://x")))
                .hasMessageContaining("database.url");
    }
}
