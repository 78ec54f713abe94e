package app.talkide.controlplane.local.simulator;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.AnthropicUpstreamChoice;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Starts the simulator and makes it the gateway's upstream, in local mode when no API key is
 * configured, and only then. The gateway provides the real upstream under the complementary
 * condition, so exactly one {@link AnthropicUpstream} exists; production never gets here.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(AnthropicUpstreamChoice.Simulator.class)
class SimulatorConfiguration {

    private static final Logger log = LoggerFactory.getLogger(SimulatorConfiguration.class);

    @Bean(destroyMethod = "close")
    SimulatorServer anthropicSimulator(SimulatorProperties properties, Clock clock) {
        return SimulatorServer.start(properties, clock);
    }

    @Bean
    AnthropicUpstream simulatedAnthropicUpstream(SimulatorServer simulator) {
        SimulatedAnthropicUpstream upstream = new SimulatedAnthropicUpstream(simulator);
        log.info("Anthropic upstream: {}", upstream.description());
        return upstream;
    }
}
