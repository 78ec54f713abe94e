package app.talkide.controlplane.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.objects.WorkerAccessBuilder;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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

    static final Path CHART = Path.of("helm", "talkide-control-plane");
    static final String API_KEY = "sk-ant-api03-secret-value-for-test";

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
    void provisioningRbacGrantsNoWildcards() {
        List<Map<String, Object>> objects = render(UnaryOperator.identity());
        Map<String, Object> clusterRole = only(objects, "ClusterRole");
        List<Map<String, Object>> rules = at(clusterRole, "rules");
        assertThat(rules).isNotEmpty().allSatisfy(rule -> {
            List<String> verbs = strings(rule.get("verbs"));
            assertThat(verbs).doesNotContain("*", "escalate", "bind", "impersonate");
            assertThat(strings(rule.get("resources"))).doesNotContain("*");
        });
        assertThat(only(objects, "Role").toString()).contains("leases");
    }

    @Test
    void provisioningSettingsBindAndTheClusterRoleHoldsWhatWorkersAreGranted() throws Exception {
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

        // RBAC lets nobody grant what it does not hold: the ClusterRole must cover every worker Role rule.
        List<Map<String, Object>> rules = at(only(objects, "ClusterRole"), "rules");
        for (var granted : WorkerAccessBuilder.RULES) {
            for (String resource : granted.getResources()) {
                assertThat(rules).as(resource).anySatisfy(rule -> {
                    assertThat(strings(rule.get("apiGroups"))).containsAll(granted.getApiGroups());
                    assertThat(strings(rule.get("resources"))).contains(resource);
                    assertThat(strings(rule.get("verbs"))).containsAll(granted.getVerbs());
                });
            }
        }
    }

    @Test
    void provisioningOffMeansNoClusterWidePermissions() {
        List<Map<String, Object>> objects = render(t -> t.set("provisioning.enabled", false));
        assertThat(kinds(objects)).doesNotContain("ClusterRole", "ClusterRoleBinding");
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

    private static List<Map<String, Object>> render(UnaryOperator<TemplateCommand> customize) {
        TemplateCommand command = new Helm(CHART)
                .template()
                .withName("talkide")
                .withNamespace("talkide-prod")
                .set("database.url", "jdbc:postgresql://db:5432/talkide")
                .set("database.username", "talkide")
                .set("database.password", "db-secret")
                .set("anthropic.apiKey", API_KEY)
                .set("masterKeys.keys", "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
                .set("masterKeys.activeKid", "k1")
                .set("oidc.issuerUri", "https://id.example.com/realms/talkide")
                .set("oidc.audience", "talkide-console");
        String rendered = customize.apply(command).call();
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml().loadAll(rendered)) {
            if (document instanceof Map<?, ?> map) {
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) map;
                objects.add(object);
            }
        }
        return objects;
    }

    private static List<String> kinds(List<Map<String, Object>> objects) {
        return objects.stream().map(o -> (String) o.get("kind")).toList();
    }

    private static Map<String, Object> only(List<Map<String, Object>> objects, String kind) {
        List<Map<String, Object>> matching =
                objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
        assertThat(matching).as(kind).hasSize(1);
        return matching.get(0);
    }

    private static Map<String, String> env(Map<String, Object> container) {
        Map<String, String> env = new java.util.HashMap<>();
        for (Map<String, Object> entry : (List<Map<String, Object>>) container.get("env")) {
            if (entry.get("value") != null) {
                env.put((String) entry.get("name"), entry.get("value").toString());
            }
        }
        return env;
    }

    private static Map<String, Object> envFromSecret(Map<String, Object> container) {
        Map<String, Object> env = new java.util.HashMap<>();
        for (Map<String, Object> entry : (List<Map<String, Object>>) container.get("env")) {
            if (entry.get("valueFrom") instanceof Map<?, ?> from && from.containsKey("secretKeyRef")) {
                env.put((String) entry.get("name"), from.get("secretKeyRef"));
            }
        }
        return env;
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object list) {
        return (List<String>) list;
    }

    private static String text(Map<String, Object> root, String path) {
        return String.valueOf((Object) at(root, path));
    }

    /** Navigates "a.b[0].c" through nested maps and lists. */
    @SuppressWarnings("unchecked")
    private static <T> T at(Map<String, Object> root, String path) {
        Object current = root;
        for (String part : path.split("\\.")) {
            String key = part.contains("[") ? part.substring(0, part.indexOf('[')) : part;
            current = ((Map<String, Object>) current).get(key);
            if (part.contains("[")) {
                int index = Integer.parseInt(part.substring(part.indexOf('[') + 1, part.indexOf(']')));
                current = ((List<Object>) current).get(index);
            }
        }
        return (T) current;
    }
}
