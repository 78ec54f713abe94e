package app.talkide.controlplane.helm;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ProvisioningFixtures;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.WorkerPod;
import app.talkide.controlplane.provisioning.WorkerPodBinding;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.provisioning.objects.TenantEnvironmentObjects;
import app.talkide.controlplane.provisioning.objects.TenantNamespaceBuilder;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every object the chart renders (with every optional part switched on) is a valid Kubernetes object by
 * fabric8's typed models, offline: a known kind, and no field the model does not know (fabric8 keeps unknown
 * fields in {@code additionalProperties}, so a typo such as {@code pathtype} would land there and the API
 * server would drop or refuse it). The same for every tenant object the control plane provisions.
 */
class ChartSchemaTest {

    /** Custom resources without a model here: the Prometheus operator's ServiceMonitor. */
    static final Set<String> CUSTOM_KINDS = Set.of("ServiceMonitor");

    final KubernetesSerialization serialization = new KubernetesSerialization();

    @Test
    void everyRenderedObjectIsAKnownKindWithOnlyKnownFields() {
        List<Map<String, Object>> objects = RenderedChart.render(t -> t.set("serviceMonitor.enabled", true)
                .set("admissionPolicy.enabled", true)
                .set("ingress.enabled", true));
        assertThat(objects).hasSizeGreaterThan(10);
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> tree : objects) {
            String kind = (String) tree.get("kind");
            HasMetadata object = serialization.convertValue(tree, HasMetadata.class);
            if (CUSTOM_KINDS.contains(kind)) {
                continue;
            }
            if (object instanceof GenericKubernetesResource) {
                problems.add(kind + ": no typed model (unknown kind or apiVersion " + tree.get("apiVersion") + ")");
                continue;
            }
            unknownFields(kind, object, problems, new IdentityHashMap<>());
        }
        assertThat(problems).isEmpty();
    }

    /**
     * The tenant objects too, as the reconciler sends them: serialized and read back, each must be a typed
     * kind with no field its model does not know, with every worker pod setting filled in (affinity and
     * tolerations come from operators' JSON).
     */
    @Test
    void everyTenantObjectIsAKnownKindWithOnlyKnownFields() {
        ProvisioningProperties properties = ProvisioningFixtures.properties();
        WorkerPod pod = new WorkerPod(
                List.of("registry-credentials"),
                Map.of("kubernetes.io/arch", "amd64"),
                List.of(WorkerPodBinding.toleration("{\"key\":\"sandbox\",\"operator\":\"Exists\"}")),
                WorkerPodBinding.affinity("{\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":"
                        + "[{\"weight\":10,\"podAffinityTerm\":{\"topologyKey\":\"kubernetes.io/hostname\"}}]}}"),
                "talkide-workers",
                "gvisor",
                "1Gi",
                "8Gi",
                "2Gi",
                5);
        DesiredState desired = DesiredStateSpec.DEFAULTS.withPod(pod).resolve(properties);
        TenantEnvironmentId id = TenantEnvironmentId.of("acme", "dev");
        List<HasMetadata> objects = new ArrayList<>(
                TenantEnvironmentObjects.inNamespace(id, desired, properties, "token", "k1:key", "now"));
        objects.add(TenantNamespaceBuilder.build(id, desired));
        assertThat(objects).hasSize(11);
        List<String> problems = new ArrayList<>();
        for (HasMetadata built : objects) {
            String json = serialization.asJson(built);
            HasMetadata read = serialization.unmarshal(json, HasMetadata.class);
            if (read instanceof GenericKubernetesResource) {
                problems.add(built.getKind() + ": no typed model");
                continue;
            }
            assertThat(read.getClass()).isEqualTo(built.getClass());
            unknownFields(built.getKind(), read, problems, new IdentityHashMap<>());
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theCheckNoticesAMisspelledField() {
        Map<String, Object> ingress = RenderedChart.only(RenderedChart.render(t -> t), "Ingress");
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) ingress.get("spec");
        spec.put("ingressClasName", "nginx");
        List<String> problems = new ArrayList<>();
        unknownFields(
                "Ingress", serialization.convertValue(ingress, HasMetadata.class), problems, new IdentityHashMap<>());
        assertThat(problems).singleElement().asString().contains("ingressClasName");
    }

    /** Walks fabric8 model objects and reports every non-empty {@code additionalProperties}. */
    private static void unknownFields(String path, Object value, List<String> problems, Map<Object, Boolean> seen) {
        if (value == null || seen.put(value, true) != null) {
            return;
        }
        if (value instanceof List<?> list) {
            list.forEach(element -> unknownFields(path + "[]", element, problems, seen));
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, element) -> unknownFields(path + "." + key, element, problems, seen));
            return;
        }
        if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Class<?> type = value.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                Object fieldValue;
                try {
                    field.setAccessible(true);
                    fieldValue = field.get(value);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    continue;
                }
                if (field.getName().equals("additionalProperties")) {
                    if (fieldValue instanceof Map<?, ?> extra && !extra.isEmpty()) {
                        problems.add(path + ": unknown fields " + extra.keySet());
                    }
                } else {
                    unknownFields(path + "." + field.getName(), fieldValue, problems, seen);
                }
            }
        }
    }
}
