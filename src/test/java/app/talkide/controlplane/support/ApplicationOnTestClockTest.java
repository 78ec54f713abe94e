package app.talkide.controlplane.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * {@link ApplicationWithoutWebTest} on a {@link MutableClock}: every class that carries it shares one cached
 * context, its database and its clock. So a test makes its own rows and either sets the clock it starts from or
 * reads it and moves on from there, never assuming where another class left it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@Import(ClockTestConfiguration.class)
public @interface ApplicationOnTestClockTest {}
