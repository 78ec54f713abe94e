package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** Provisioning settings bound as Spring would bind them, defaults included, for tests without a context. */
public final class ProvisioningFixtures {

    public static ProvisioningProperties properties(String... keyValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            values.put("talkide.provisioning." + keyValues[i], keyValues[i + 1]);
        }
        return new Binder(new MapConfigurationPropertySource(values))
                .bindOrCreate("talkide.provisioning", ProvisioningProperties.class);
    }

    public static DesiredState defaults(ProvisioningProperties properties) {
        return DesiredStateSpec.DEFAULTS.resolve(properties);
    }

    private ProvisioningFixtures() {}
}
