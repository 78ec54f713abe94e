package app.talkide.controlplane.gateway;

import org.springframework.test.context.TestPropertySource;

/** {@link GatewayProxyTest} with the Jetty upstream client ({@code talkide.gateway.upstream-client: jetty}). */
@TestPropertySource(properties = "talkide.gateway.upstream-client=jetty")
class GatewayProxyOverJettyTest extends GatewayProxyTest {}
