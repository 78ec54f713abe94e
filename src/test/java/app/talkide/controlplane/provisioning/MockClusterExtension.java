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
 * Starts the cluster of a {@link MockCluster} test class, hands the test its client and server through its static
 * fields, and gives the class's Spring context the application's client. Classes that inherit {@code @MockCluster}
 * from one superclass share one cluster, started on first use and kept for the test JVM's life: their contexts
 * are then equal and the context cache serves one to all of them (a server per class would make every class
 * start a context, and leave the cached one bound to a stopped server).
 */
public final class MockClusterExtension implements BeforeAllCallback {

    /** The client the application's beans get; its calls carry {@link MockApiRequests#CALLER_HEADER}. */
    static final String BEAN = "mockKubernetesClient";

    /** One cluster per class that declares {@code @MockCluster}, kept until the JVM ends. */
    private static final Map<Class<?>, Cluster> CLUSTERS = new ConcurrentHashMap<>();

    @Override
    public void beforeAll(ExtensionContext context) throws IllegalAccessException {
        Class<?> testClass = context.getRequiredTestClass();
        Cluster cluster = clusterOf(testClass);
        inject(testClass, KubernetesMockServer.class, cluster.server());
        inject(testClass, KubernetesClient.class, cluster.client());
    }

    private static Cluster clusterOf(Class<?> testClass) {
        return CLUSTERS.computeIfAbsent(declaringClass(testClass), key -> {
            Cluster cluster = Cluster.start();
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "mock-cluster-stop"));
            return cluster;
        });
    }

    /** The class that carries {@code @MockCluster} itself: the test class or the superclass it inherits it from. */
    private static Class<?> declaringClass(Class<?> testClass) {
        Class<?> declaring = testClass;
        while (declaring.getDeclaredAnnotation(MockCluster.class) == null && declaring.getSuperclass() != null) {
            declaring = declaring.getSuperclass();
        }
        return declaring;
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
            return new Customizer(declaringClass(testClass));
        }
    }

    /**
     * Equal for the classes that share a cluster (one declaring class), so a context cached for one serves the
     * others and never a class bound to another cluster.
     */
    private record Customizer(Class<?> declaringClass) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            RootBeanDefinition client = new RootBeanDefinition(KubernetesClient.class, this::applicationClient);
            client.setPrimary(true);
            ((BeanDefinitionRegistry) context.getBeanFactory()).registerBeanDefinition(BEAN, client);
        }

        private KubernetesClient applicationClient() {
            return clusterOf(declaringClass).applicationClient();
        }
    }
}
