package app.talkide.controlplane.helm;

import static app.talkide.controlplane.helm.RenderedChart.at;
import static app.talkide.controlplane.helm.RenderedChart.only;
import static app.talkide.controlplane.helm.RenderedChart.render;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ProvisioningFixtures;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.WorkerPod;
import app.talkide.controlplane.provisioning.WorkerPodBinding;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.io.ByteArrayResource;

/** The chart's `config:` and its own settings become one application.yaml that Spring accepts. */
class ChartConfigTest {

    @Test
    void configOverridesMergeWithTheChartsOwnSettingsAndSpringLoadsTheFile() throws Exception {
        List<Map<String, Object>> objects = render(t -> t.set("config.talkide.provisioning.defaults.quota.cpu", "4")
                .set("config.talkide.provisioning.schedule.resync-interval", "10m")
                .set("config.spring.main.banner-mode", "off")
                .set("provisioning.storageClass", "nfs-client"));

        Binder binder = binderOf(objects);
        ProvisioningProperties provisioning = binder.bindOrCreate("talkide.provisioning", ProvisioningProperties.class);
        // The operator's setting and the chart's sit side by side in one `talkide` tree.
        assertThat(provisioning.defaults().quota().cpu()).isEqualTo("4");
        assertThat(provisioning.defaults().storageClass()).isEqualTo("nfs-client");
        assertThat(provisioning.controlPlaneNamespace()).isEqualTo("talkide-prod");
        assertThat(binder.bind("talkide.provisioning.schedule.resync-interval", String.class)
                        .get())
                .isEqualTo("10m");
        assertThat(binder.bind("talkide.gateway.upstream-url", String.class).get())
                .isEqualTo("https://api.anthropic.com");
        assertThat(binder.bind("spring.main.banner-mode", String.class).get()).isEqualTo("off");
    }

    @Test
    void configWinsWhereItSetsWhatTheChartAlsoSets() throws Exception {
        Binder binder =
                binderOf(render(t -> t.set("config.talkide.gateway.upstream-url", "https://proxy.example.com")));
        assertThat(binder.bind("talkide.gateway.upstream-url", String.class).get())
                .isEqualTo("https://proxy.example.com");
        assertThat(binder.bind("talkide.auth.jwt.roles-claim", String.class).get())
                .isEqualTo("roles");
    }

    @Test
    void withoutConfigTheFileHoldsTheChartsSettingsOnly() throws Exception {
        Binder binder = binderOf(render(t -> t));
        assertThat(binder.bind("talkide.provisioning.enabled", Boolean.class).get())
                .isTrue();
        assertThat(binder.bind("spring", Map.class).isBound()).isFalse();
    }

    @Test
    void workerPodValuesBindToTheProvisioningDefaultsAndPassTheirValidation() throws Exception {
        List<Map<String, Object>> objects = render(t -> t.set("provisioning.workerPod.runtimeClassName", "gvisor")
                .set("provisioning.workerPod.priorityClassName", "talkide-workers")
                .set("provisioning.workerPod.imagePullSecrets[0]", "registry-credentials")
                .set("provisioning.workerPod.nodeSelector.kubernetes\\.io/arch", "amd64")
                .set("provisioning.workerPod.tolerations[0].key", "sandbox")
                .set("provisioning.workerPod.tolerations[0].operator", "Exists")
                .set("provisioning.workerPod.tolerations[0].effect", "NoSchedule")
                .set(
                        "provisioning.workerPod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
                        "10")
                .set(
                        "provisioning.workerPod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey",
                        "kubernetes.io/hostname")
                .set(
                        "provisioning.workerPod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchLabels.app\\.kubernetes\\.io/name",
                        "talkide-worker")
                .set("provisioning.workerPod.tmpSizeLimit", "2Gi")
                .set("provisioning.workerPod.probeTimeoutSeconds", "5"));
        ApplicationConversionService conversions = new ApplicationConversionService();
        conversions.addConverter(String.class, Affinity.class, WorkerPodBinding::affinity);
        conversions.addConverter(String.class, Toleration.class, WorkerPodBinding::toleration);
        Binder binder = new Binder(sourcesOf(objects), null, conversions);

        WorkerPod pod = binder.bindOrCreate("talkide.provisioning", ProvisioningProperties.class)
                .defaults()
                .pod();
        assertThat(pod.runtimeClassName()).isEqualTo("gvisor");
        assertThat(pod.priorityClassName()).isEqualTo("talkide-workers");
        assertThat(pod.imagePullSecrets()).containsExactly("registry-credentials");
        // Dotted keys survive: relaxed binding would split them without the chart's "[key]" and JSON forms.
        assertThat(pod.nodeSelector()).containsExactly(Map.entry("kubernetes.io/arch", "amd64"));
        assertThat(pod.tolerations()).singleElement().satisfies(toleration -> {
            assertThat(toleration.getKey()).isEqualTo("sandbox");
            assertThat(toleration.getEffect()).isEqualTo("NoSchedule");
        });
        assertThat(pod.affinity()
                        .getPodAntiAffinity()
                        .getPreferredDuringSchedulingIgnoredDuringExecution()
                        .get(0)
                        .getPodAffinityTerm()
                        .getLabelSelector()
                        .getMatchLabels())
                .containsExactly(Map.entry("app.kubernetes.io/name", "talkide-worker"));
        assertThat(pod.tmpSizeLimit()).isEqualTo("2Gi");
        assertThat(pod.ephemeralStorageLimit()).isEqualTo("4Gi");
        assertThat(pod.probeTimeoutSeconds()).isEqualTo(5);
    }

    @Test
    void theDefaultWorkerImageIsPinnedToTheChartsAppVersionNeverLatest() throws Exception {
        ProvisioningProperties provisioning =
                binderOf(render(t -> t)).bindOrCreate("talkide.provisioning", ProvisioningProperties.class);
        String appVersion = (String) new org.yaml.snakeyaml.Yaml()
                .<Map<String, Object>>load(Files.readString(RenderedChart.CHART.resolve("Chart.yaml")))
                .get("appVersion");
        assertThat(provisioning.defaults().workerImage())
                .isEqualTo("registry.example.com/talkide/worker:" + appVersion);
        // And without the chart: the application's own default is pinned as well.
        assertThat(ProvisioningFixtures.properties().defaults().workerImage()).doesNotEndWith(":latest");
        for (Path file : List.of(
                RenderedChart.CHART.resolve("values.yaml"),
                Path.of("src", "main", "resources", "application.yaml"),
                Path.of("docs", "provisioning.md"),
                Path.of("README.md"))) {
            assertThat(Files.readString(file)).as(file.toString()).doesNotContain("worker:latest");
        }
    }

    /** Loads the rendered application.yaml as Spring does: its loader refuses duplicate keys. */
    private static Binder binderOf(List<Map<String, Object>> objects) throws Exception {
        return new Binder(sourcesOf(objects));
    }

    private static Iterable<ConfigurationPropertySource> sourcesOf(List<Map<String, Object>> objects) throws Exception {
        Map<String, Object> data = at(only(objects, "ConfigMap"), "data");
        String applicationYaml = (String) data.get("application.yaml");
        var sources = new YamlPropertySourceLoader()
                .load("chart", new ByteArrayResource(applicationYaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(sources).hasSize(1);
        return ConfigurationPropertySources.from(sources);
    }
}
