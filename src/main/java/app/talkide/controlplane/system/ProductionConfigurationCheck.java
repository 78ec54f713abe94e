package app.talkide.controlplane.system;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.StringUtils;

/**
 * Refuses to start in production mode while a required setting is missing, naming every missing one.
 *
 * <p>Runs before any bean exists, so a missing database URL is reported as such rather than as an
 * obscure driver error. What is required lives in {@code application-production.yaml}
 * ({@code talkide.production.required}): each feature lists its own settings there.
 */
class ProductionConfigurationCheck implements EnvironmentPostProcessor, Ordered {

    static final String REQUIRED_LIST = "talkide.production.required";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!"production".equalsIgnoreCase(environment.getProperty("talkide.mode", "local"))) {
            return;
        }
        List<String> missing = new ArrayList<>();
        for (int i = 0; environment.containsProperty(REQUIRED_LIST + "[" + i + "].property"); i++) {
            String property = environment.getProperty(REQUIRED_LIST + "[" + i + "].property");
            String hint = environment.getProperty(REQUIRED_LIST + "[" + i + "].hint", property);
            if (!StringUtils.hasText(environment.getProperty(property))) {
                missing.add(hint);
            }
        }
        if (!missing.isEmpty()) {
            throw new MissingProductionConfigurationException(missing);
        }
    }

    @Override
    public int getOrder() {
        // After config data has been loaded, so application-production.yaml and the environment are visible.
        return Ordered.LOWEST_PRECEDENCE;
    }
}
