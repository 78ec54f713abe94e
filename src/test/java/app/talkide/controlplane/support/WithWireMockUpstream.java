package app.talkide.controlplane.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * A test class whose gateway calls the shared WireMock stand-in for the Anthropic API
 * ({@link WireMockUpstream#server()}, reset before every test) instead of the real one.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(WireMockUpstream.Reset.class)
@ContextCustomizerFactories(WireMockUpstream.UrlProperty.class)
public @interface WithWireMockUpstream {}
