package app.talkide.controlplane.gateway;

import org.springframework.test.context.TestPropertySource;

/** {@link GatewayStreamingTest} with the Jetty upstream client ({@code talkide.gateway.upstream-client: jetty}). */
@TestPropertySource(properties = "talkide.gateway.upstream-client=jetty")
class GatewayStreamingOverJettyTest extends GatewayStreamingTest {}
