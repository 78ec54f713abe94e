package app.talkide.controlplane.builds;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.json.JsonMapper;

/** Checks answers of the build API against the schemas of docs/builds.openapi.yaml. */
final class BuildApiSchemas {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Map<String, Object> COMPONENTS = components();

    private BuildApiSchemas() {}

    static void assertConforms(String json, String schemaName) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.put("components", COMPONENTS);
        root.put("$ref", "#/components/schemas/" + schemaName);
        Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(JSON.writeValueAsString(root));
        List<Error> errors = schema.validate(JSON.readTree(json));
        assertThat(errors).as("%s against %s", json, schemaName).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> components() {
        try {
            Map<String, Object> document = new Yaml().load(Files.readString(Path.of("docs/builds.openapi.yaml")));
            return (Map<String, Object>) document.get("components");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
