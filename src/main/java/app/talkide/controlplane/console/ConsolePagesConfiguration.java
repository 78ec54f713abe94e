package app.talkide.controlplane.console;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Friendly addresses for the console's pages, which are static files under {@code static/}: {@code /} is
 * Spring Boot's welcome page ({@code index.html}); the sign-in page is where the security chain sends
 * people ({@code /login}); the admin page answers at {@code /admin} too.
 */
@Configuration(proxyBeanMethods = false)
class ConsolePagesConfiguration implements WebMvcConfigurer {

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addViewController("/login").setViewName("forward:/login.html");
        registry.addViewController("/admin").setViewName("forward:/admin.html");
    }
}
