package app.talkide.controlplane.workercontract;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Any worker, not only this application, must be able to use the contract module: no Spring in it. */
class WorkerContractIsSpringFreeTest {

    @Test
    void workerContractDependsOnNoSpringClass() {
        var classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("app.talkide.controlplane.workercontract");
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.springframework..")
                .check(classes);
    }
}
