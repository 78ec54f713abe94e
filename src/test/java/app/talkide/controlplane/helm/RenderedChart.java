package app.talkide.controlplane.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.yaml.snakeyaml.Yaml;

/**
 * Renders the chart in-process (helm-java) with the required values set, and reads the objects. Public for the
 * real-cluster test, which applies the chart's RBAC to K3s.
 */
public final class RenderedChart {

    public static final Path CHART = Path.of("helm", "talkide-control-plane");
    static final String API_KEY = "sk-ant-api03-secret-value-for-test";

    private RenderedChart() {}

    public static List<Map<String, Object>> render(UnaryOperator<TemplateCommand> customize) {
        return parse(customize.apply(command()).call());
    }

    public static TemplateCommand command() {
        return new Helm(CHART)
                .template()
                .withName("talkide")
                .withNamespace("talkide-prod")
                .set("database.url", "jdbc:postgresql://db:5432/talkide")
                .set("database.username", "talkide")
                .set("database.password", "db-secret")
                .set("anthropic.apiKey", API_KEY)
                .set("masterKeys.keys", "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
                .set("masterKeys.activeKid", "k1")
                .set("oidc.issuerUri", "https://id.example.com/realms/talkide")
                .set("oidc.audience", "talkide-console");
    }

    public static List<Map<String, Object>> parse(String rendered) {
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml().loadAll(rendered)) {
            if (document instanceof Map<?, ?> map) {
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) map;
                objects.add(object);
            }
        }
        return objects;
    }

    static List<String> kinds(List<Map<String, Object>> objects) {
        return objects.stream().map(o -> (String) o.get("kind")).toList();
    }

    static Map<String, Object> only(List<Map<String, Object>> objects, String kind) {
        List<Map<String, Object>> matching =
                objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
        assertThat(matching).as(kind).hasSize(1);
        return matching.get(0);
    }

    static Map<String, Object> named(List<Map<String, Object>> objects, String kind, String name) {
        List<Map<String, Object>> matching = objects.stream()
                .filter(o -> kind.equals(o.get("kind")) && name.equals(at(o, "metadata.name")))
                .toList();
        assertThat(matching).as(kind + " " + name).hasSize(1);
        return matching.get(0);
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> env(Map<String, Object> container) {
        Map<String, String> env = new HashMap<>();
        for (Map<String, Object> entry : (List<Map<String, Object>>) container.get("env")) {
            if (entry.get("value") != null) {
                env.put((String) entry.get("name"), entry.get("value").toString());
            }
        }
        return env;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> envFromSecret(Map<String, Object> container) {
        Map<String, Object> env = new HashMap<>();
        for (Map<String, Object> entry : (List<Map<String, Object>>) container.get("env")) {
            if (entry.get("valueFrom") instanceof Map<?, ?> from && from.containsKey("secretKeyRef")) {
                env.put((String) entry.get("name"), from.get("secretKeyRef"));
            }
        }
        return env;
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Object list) {
        return list == null ? List.of() : (List<String>) list;
    }

    static String text(Map<String, Object> root, String path) {
        return String.valueOf((Object) at(root, path));
    }

    /** Navigates "a.b[0].c" through nested maps and lists. */
    @SuppressWarnings("unchecked")
    static <T> T at(Map<String, Object> root, String path) {
        Object current = root;
        for (String part : path.split("\\.")) {
            String key = part.contains("[") ? part.substring(0, part.indexOf('[')) : part;
            current = ((Map<String, Object>) current).get(key);
            if (part.contains("[")) {
                int index = Integer.parseInt(part.substring(part.indexOf('[') + 1, part.indexOf(']')));
                current = ((List<Object>) current).get(index);
            }
        }
        return (T) current;
    }
}
