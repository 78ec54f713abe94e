package app.talkide.controlplane.token.mint;

import app.talkide.controlplane.token.identity.IdentityTokens;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Registers {@link MintCallerResolver}, so the mint endpoint authenticates before it reads its body. */
@Configuration(proxyBeanMethods = false)
class MintWebConfiguration implements WebMvcConfigurer {

    private final IdentityTokens identityTokens;
    private final MeterRegistry meters;

    MintWebConfiguration(IdentityTokens identityTokens, MeterRegistry meters) {
        this.identityTokens = identityTokens;
        this.meters = meters;
    }

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new MintCallerResolver(identityTokens, meters));
    }
}
