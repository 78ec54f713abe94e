package app.talkide.controlplane.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The whole application without a web server, its default test configuration and nothing else: every class
 * that carries it shares one cached Spring context (and so one database), where a property or bean of its own
 * would start another. So a test makes its own rows (fresh ids) and never assumes a table is empty.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
public @interface ApplicationWithoutWebTest {}
