package app.talkide.controlplane.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

/** Production requires the cut-over gate; local mode does not; unset means required. */
class GateDefaultsTest {

    @Test
    void productionRequiresTheGateAndLocalModeDoesNot() throws IOException {
        assertThat(bind("application.yaml").required()).isFalse();
        // The production profile's file wins over application.yaml, as Spring layers them.
        assertThat(bind("application-production.yaml", "application.yaml").required())
                .isTrue();
        assertThat(new Binder()
                        .bindOrCreate("talkide.gate", GateProperties.class)
                        .required())
                .isTrue();
    }

    private static GateProperties bind(String... files) throws IOException {
        MutablePropertySources sources = new MutablePropertySources();
        for (String file : files) {
            for (PropertySource<?> source : new YamlPropertySourceLoader().load(file, new ClassPathResource(file))) {
                sources.addLast(source);
            }
        }
        return new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate("talkide.gate", GateProperties.class);
    }
}
