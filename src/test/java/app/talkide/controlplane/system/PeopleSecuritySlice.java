package app.talkide.controlplane.system;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The people's security chain for {@code @WebMvcTest} slices, which leave {@code @Configuration} classes
 * out (and the request size limit, a filter the slice keeps): {@code @Import} this so a slice answers 401/403 and problem details as the application does.
 */
@TestConfiguration(proxyBeanMethods = false)
@Import(PeopleSecurityConfiguration.class)
@EnableConfigurationProperties({ControlPlaneProperties.class, AuthProperties.class, ApiProperties.class})
public class PeopleSecuritySlice {

    /** The slice has no metrics; the mint endpoint's argument resolver (a WebMvcConfigurer, kept) counts. */
    @Bean
    MeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }
}
