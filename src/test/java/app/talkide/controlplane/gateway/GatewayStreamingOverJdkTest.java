package app.talkide.controlplane.gateway;

import org.springframework.test.context.TestPropertySource;

/** {@link GatewayStreamingTest} with the Jdk upstream client ({@code talkide.gateway.upstream-client: jdk}). */
@TestPropertySource(properties = "talkide.gateway.upstream-client=jdk")
class GatewayStreamingOverJdkTest extends GatewayStreamingTest {}
