package app.talkide.controlplane.local.simulator;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import java.net.URI;

/** The gateway's upstream in local mode without an API key: the built-in simulator and its placeholder key. */
final class SimulatedAnthropicUpstream implements AnthropicUpstream {

    private final SimulatorServer server;

    SimulatedAnthropicUpstream(SimulatorServer server) {
        this.server = server;
    }

    @Override
    public URI baseUrl() {
        return server.baseUrl();
    }

    @Override
    public String apiKey() {
        return server.apiKey();
    }

    @Override
    public String description() {
        return "the built-in Anthropic simulator at " + server.baseUrl()
                + " (local mode and no ANTHROPIC_API_KEY configured; set it to use the real Anthropic API)";
    }

    @Override
    public String toString() {
        return "SimulatedAnthropicUpstream[" + server.baseUrl() + ", apiKey=<redacted>]";
    }
}
