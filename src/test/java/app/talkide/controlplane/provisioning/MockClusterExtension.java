package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.provisioning.reconcile.FieldManager;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts and stops the cluster of a {@link MockCluster} test class, hands the test its client and server through
 * its static fields, and gives the class's Spring context the application's client.
 */
public final class MockClusterExtension implements BeforeAllCallback, AfterAllCallback {

    /** The client the application's beans get; its calls carry {@link MockApiRequests#CALLER_HEADER}. */
    static final String BEAN = "mockKubernetesClient";

    /** One cluster per running test class; Spring reaches its class's one from the context customizer. */
    private static final Map<Class<?>, Cluster> CLUSTERS = new ConcurrentHashMap<>();

    @Override
    public void beforeAll(ExtensionContext context) throws IllegalAccessException {
        Class<?> testClass = context.getRequiredTestClass();
        Cluster cluster = Cluster.start();
        CLUSTERS.put(testClass, cluster);
        inject(testClass, KubernetesMockServer.class, cluster.server());
        inject(testClass, KubernetesClient.class, cluster.client());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Cluster cluster = CLUSTERS.remove(context.getRequiredTestClass());
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void inject(Class<?> testClass, Class<?> type, Object value) throws IllegalAccessException {
        List<Field> fields = ReflectionSupport.findFields(
                testClass,
                field -> Modifier.isStatic(field.getModifiers()) && field.getType() == type,
                HierarchyTraversalMode.TOP_DOWN);
        for (Field field : fields) {
            field.setAccessible(true);
            field.set(null, value);
        }
    }

    /**
     * fabric8's CRUD mock API server (what {@code @EnableKubernetesMockClient(crud = true)} starts), the test's
     * patient client with another replica leading, and the application's client on the same server.
     */
    private record Cluster(
            KubernetesMockServer server,
            KubernetesClient plainClient,
            KubernetesClient client,
            KubernetesClient applicationClient) {

        static Cluster start() {
            Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
            KubernetesMockServer server = new KubernetesMockServer(
                    new Context(Serialization.jsonMapper()),
                    new MockWebServer(),
                    responses,
                    new KubernetesMixedDispatcher(responses),
                    false);
            server.init();
            KubernetesClient plain = server.createClient();
            KubernetesClient client = AnotherReplicaLeads.patientFollower(plain);
            KubernetesClient application = FieldManager.install(new KubernetesClientBuilder())
                    .withConfig(new ConfigBuilder(client.getConfiguration())
                            .withCustomHeaders(Map.of(MockApiRequests.CALLER_HEADER, "control-plane"))
                            .build())
                    .build();
            return new Cluster(server, plain, client, application);
        }

        void close() {
            applicationClient.close();
            client.close();
            server.destroy();
            plainClient.close();
        }
    }

    /** Registers the application's client as the primary {@link KubernetesClient} of a {@link MockCluster} class. */
    public static final class ApplicationClient implements ContextCustomizerFactory {

        @Override
        public ContextCustomizer createContextCustomizer(
                Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
            return new Customizer(testClass);
        }
    }

    /**
     * Equal only for the same test class: each class has a cluster of its own, so a context cached for one must
     * never serve another.
     */
    private record Customizer(Class<?> testClass) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            RootBeanDefinition client = new RootBeanDefinition(KubernetesClient.class, this::applicationClient);
            client.setPrimary(true);
            ((BeanDefinitionRegistry) context.getBeanFactory()).registerBeanDefinition(BEAN, client);
        }

        private KubernetesClient applicationClient() {
            Cluster cluster = CLUSTERS.get(testClass);
            if (cluster == null) {
                throw new IllegalStateException("no mock cluster runs for " + testClass.getName());
            }
            return cluster.applicationClient();
        }
    }
}
