package app.talkide.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.modulith.core.ApplicationModules;
import org.springframework.modulith.docs.Documenter;
import org.springframework.modulith.docs.Documenter.DiagramOptions;
import org.springframework.modulith.docs.Documenter.DiagramOptions.DiagramStyle;

/** Features reach each other only through their published API: no cycles, no reaching into internals. */
class ModularityTest {

    private static final ApplicationModules MODULES = ApplicationModules.of(ControlPlaneApplication.class);
    private static final Path OUTPUT = Path.of("target/spring-modulith-docs");
    private static final Path GENERATED = OUTPUT.resolve("modules.puml");
    private static final Path DOCUMENTED = Path.of("docs/modules.puml");

    @Test
    void featuresRespectTheirBoundaries() {
        MODULES.verify();
    }

    /** docs/architecture.md shows docs/modules.puml: drawn from the model, so it cannot drift from the code. */
    @Test
    void moduleDiagramInTheDocsIsTheModelsOwn() throws IOException {
        new Documenter(MODULES, Documenter.Options.defaults().withOutputFolder(OUTPUT.toString()))
                .writeModulesAsPlantUml(DiagramOptions.defaults().withStyle(DiagramStyle.UML));
        Files.write(GENERATED, inStableOrder(Files.readAllLines(OUTPUT.resolve("components.puml"))));

        assertThat(DOCUMENTED)
                .as(
                        "docs/modules.puml is out of date with the modules; regenerate it: ./mvnw test -Dtest=ModularityTest"
                                + " -Djacoco.skip=true; cp %s %s",
                        GENERATED, DOCUMENTED)
                .exists()
                .hasSameTextualContentAs(GENERATED);
    }

    /** Modules and their relations come in class-path scanning order; sorted, the file changes only with them. */
    private static List<String> inStableOrder(List<String> lines) {
        List<String> result = new ArrayList<>();
        List<String> run = new ArrayList<>();
        for (String line : lines) {
            if (!run.isEmpty() && kind(run.getFirst()) != kind(line)) {
                flush(run, result);
            }
            run.add(line);
        }
        flush(run, result);
        return result;
    }

    private static void flush(List<String> run, List<String> result) {
        if (!run.isEmpty() && kind(run.getFirst()) != 0) {
            run.sort(null);
        }
        result.addAll(run);
        run.clear();
    }

    /** 1 for a module, 2 for a relation between modules, 0 for anything else (kept in place). */
    private static int kind(String line) {
        return line.stripLeading().startsWith("component ") ? 1 : line.contains(" --> ") ? 2 : 0;
    }
}
