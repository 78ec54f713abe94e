package app.talkide.controlplane.provisioning;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * A test class that drives the control plane against fabric8's CRUD mock API server, one server for the classes
 * that inherit this annotation from one superclass (so they can share a Spring context; each test works in a
 * namespace of its own) and one for a class that carries it itself:
 * another replica holds the leader Lease ({@link AnotherReplicaLeads}), so the application never leads unless
 * the test says so; the class's static {@code KubernetesClient} field gets a patient client for the test's own
 * calls and its static {@code KubernetesMockServer} field the server; the application's beans get a client of
 * their own whose calls {@link MockApiRequests} can check against the chart's RBAC.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(MockClusterExtension.class)
@ContextCustomizerFactories(MockClusterExtension.ApplicationClient.class)
public @interface MockCluster {}
