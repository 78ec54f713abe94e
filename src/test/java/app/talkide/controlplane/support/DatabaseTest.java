package app.talkide.controlplane.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test that touches the database: it runs on H2 in the default test run and again on
 * PostgreSQL in the {@code postgresql} run.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(DatabaseTest.TAG)
public @interface DatabaseTest {
    String TAG = "database";
}
