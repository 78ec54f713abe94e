package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.AnthropicUpstreamChoice;
import app.talkide.controlplane.gateway.GatewayProperties;
import java.net.URI;
import org.springframework.context.annotation.Conditional;
import org.springframework.stereotype.Component;

/**
 * The real Anthropic API (or whatever {@code talkide.gateway.upstream-url} names) with the configured
 * key. Active everywhere except local mode without a key, where the built-in simulator answers.
 */
@Component
@Conditional(AnthropicUpstreamChoice.Configured.class)
class ConfiguredAnthropicUpstream implements AnthropicUpstream {

    private final URI baseUrl;
    private final String apiKey;

    ConfiguredAnthropicUpstream(GatewayProperties properties) {
        String url = properties.upstreamUrl().toString();
        this.baseUrl = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        this.apiKey = properties.apiKey();
        if (!apiKey.chars().allMatch(c -> c >= 0x21 && c <= 0x7E)) {
            // Refused here, without the value: the HTTP client would refuse the header on every call, with
            // the key itself in its exception message, which would end up in the log.
            throw new IllegalStateException("talkide.gateway.api-key (ANTHROPIC_API_KEY) contains a character an"
                    + " HTTP header cannot carry (a space, line break or invisible character); set the key again");
        }
    }

    @Override
    public URI baseUrl() {
        return baseUrl;
    }

    @Override
    public String apiKey() {
        return apiKey;
    }

    @Override
    public String description() {
        return "Anthropic API at " + baseUrl
                + (apiKey.isEmpty() ? " (no API key configured!)" : " (API key configured)");
    }

    @Override
    public String toString() {
        return "ConfiguredAnthropicUpstream[" + baseUrl + ", apiKey=<redacted>]";
    }
}
