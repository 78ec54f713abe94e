package app.talkide.controlplane.support;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Gives every Spring test context a database and a data directory of its own (see {@link TestDatabase}).
 * Registered in {@code META-INF/spring.factories}, so no test has to remember it. The customizer is
 * equal for all contexts, so Spring's context cache still shares identical configurations.
 */
class TestDatabaseContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return new Customizer();
    }

    private static final class Customizer implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            Map<String, Object> properties = new HashMap<>(TestDatabase.freshSettings());
            // Spring caches many contexts in each test JVM (two of them run at once); a cached context not
            // in use must give its connections back, or the suite exhausts PostgreSQL's max_connections
            // (shared with every other build on the machine).
            properties.put("spring.datasource.hikari.maximum-pool-size", 10);
            properties.put("spring.datasource.hikari.minimum-idle", 0);
            properties.put("spring.datasource.hikari.idle-timeout", 10_000);
            try {
                properties.put(
                        "talkide.data-dir",
                        Files.createTempDirectory("talkide-test-").toString());
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource("talkide-test-database", properties));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Customizer;
        }

        @Override
        public int hashCode() {
            return Customizer.class.hashCode();
        }
    }
}
