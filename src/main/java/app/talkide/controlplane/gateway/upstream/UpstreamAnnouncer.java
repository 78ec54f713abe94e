package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/** Says at start-up where Anthropic calls go (never with the key), so nobody has to guess. */
@Component
class UpstreamAnnouncer {

    private static final Logger log = LoggerFactory.getLogger(UpstreamAnnouncer.class);

    private final ObjectProvider<AnthropicUpstream> upstream;

    UpstreamAnnouncer(ObjectProvider<AnthropicUpstream> upstream) {
        this.upstream = upstream;
    }

    @EventListener(ApplicationReadyEvent.class)
    void announce() {
        AnthropicUpstream active = upstream.getIfAvailable();
        if (active == null) {
            log.warn("Anthropic gateway: no upstream is configured, so gateway calls answer 502."
                    + " Set ANTHROPIC_API_KEY (or run local mode with the built-in simulator).");
        } else {
            log.info("Anthropic gateway upstream: {}", active.description());
        }
    }
}
