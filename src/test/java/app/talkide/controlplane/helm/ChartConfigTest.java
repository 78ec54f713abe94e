package app.talkide.controlplane.helm;

import static app.talkide.controlplane.helm.RenderedChart.at;
import static app.talkide.controlplane.helm.RenderedChart.only;
import static app.talkide.controlplane.helm.RenderedChart.render;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
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

    /** Loads the rendered application.yaml as Spring does: its loader refuses duplicate keys. */
    private static Binder binderOf(List<Map<String, Object>> objects) throws Exception {
        Map<String, Object> data = at(only(objects, "ConfigMap"), "data");
        String applicationYaml = (String) data.get("application.yaml");
        var sources = new YamlPropertySourceLoader()
                .load("chart", new ByteArrayResource(applicationYaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(sources).hasSize(1);
        return new Binder(ConfigurationPropertySources.from(sources));
    }
}
