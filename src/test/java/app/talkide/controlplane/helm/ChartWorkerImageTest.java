package app.talkide.controlplane.helm;

import static app.talkide.controlplane.helm.RenderedChart.at;
import static app.talkide.controlplane.helm.RenderedChart.only;
import static app.talkide.controlplane.helm.RenderedChart.render;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import com.marcnuri.helm.TemplateCommand;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.io.ByteArrayResource;

/**
 * The workers a release provisions run the worker image built with it (worker/Dockerfile, pushed by CI
 * with the control plane's tag), never a floating {@code latest}.
 */
class ChartWorkerImageTest {

    @Test
    void byDefaultTheWorkerImageHasTheControlPlanesTagNeverLatest() throws Exception {
        assertThat(workerImage(UnaryOperator.identity())).isEqualTo("registry.example.com/talkide/worker:0.1.0");
        assertThat(workerImage(t -> t.set("image.tag", "3f2a9c1")
                        .set("provisioning.workerRepository", "registry.gitlab.example/talkide/worker")))
                .isEqualTo("registry.gitlab.example/talkide/worker:3f2a9c1");
    }

    @Test
    void aWorkerImageSetWholeIsTakenAsIs() throws Exception {
        assertThat(workerImage(t -> t.set("image.tag", "3f2a9c1").set("provisioning.workerImage", "reg/w:1.4")))
                .isEqualTo("reg/w:1.4");
    }

    private static String workerImage(UnaryOperator<TemplateCommand> customize) throws Exception {
        List<Map<String, Object>> objects = render(customize);
        Map<String, Object> data = at(only(objects, "ConfigMap"), "data");
        String applicationYaml = (String) data.get("application.yaml");
        var sources = new YamlPropertySourceLoader()
                .load("chart", new ByteArrayResource(applicationYaml.getBytes(StandardCharsets.UTF_8)));
        return new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate("talkide.provisioning", ProvisioningProperties.class)
                .defaults()
                .workerImage();
    }
}
