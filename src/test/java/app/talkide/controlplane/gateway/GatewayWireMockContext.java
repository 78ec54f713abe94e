package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;

import app.talkide.controlplane.support.WithWireMockUpstream;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The gateway over real sockets against the shared WireMock upstream, with short limits a test can reach:
 * one configuration for the gateway classes that need nothing else, so they share one cached context
 * instead of starting one each. Every test makes its own users, so none sees another's reservations.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@WithWireMockUpstream
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.gateway.api-key=" + API_KEY,
            "talkide.gateway.response-timeout=2s",
            "talkide.gateway.max-request-size=64KB",
            "talkide.gateway.body-read-timeout=2s",
            "logging.level.app.talkide=DEBUG"
        })
@interface GatewayWireMockContext {}
