package app.talkide.controlplane.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test of behaviour only PostgreSQL has (LISTEN/NOTIFY across replicas): it runs in the
 * {@code postgresql} run only, never silently on H2.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(PostgresOnly.TAG)
public @interface PostgresOnly {
    String TAG = "postgresql-only";
}
