package app.talkide.controlplane.observability;

import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Registers {@link PeopleLogContextFilter} right after Spring Security's filter chain. */
@Configuration(proxyBeanMethods = false)
class LogContextConfiguration {

    @Bean
    FilterRegistrationBean<PeopleLogContextFilter> peopleLogContextFilter() {
        var registration = new FilterRegistrationBean<>(new PeopleLogContextFilter());
        registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER + 1);
        return registration;
    }
}
