package app.talkide.controlplane.provisioning.objects;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ProvisioningFixtures;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The provisioned Deployment gives the TypeScript worker ({@code worker/}) everything it needs to start: every
 * variable its {@code loadConfig} requires, read from the worker's own source so a new required variable
 * fails here rather than as a crash-looping pod; and writable space for everything it writes under the
 * read-only root filesystem.
 */
class WorkerEnvironmentContractTest {

    static final Path WORKER_CONFIG = Path.of("worker", "src", "config.ts");
    static final ProvisioningProperties PROPERTIES = ProvisioningFixtures.properties();

    /** {@code ENV = { key: 'NAME', ... } as const}: the worker's names for its variables. */
    static final Pattern ENV_BLOCK = Pattern.compile("export const ENV = \\{(.*?)\\} as const", Pattern.DOTALL);

    static final Pattern ENV_ENTRY = Pattern.compile("(\\w+):\\s*'([A-Z0-9_]+)'");
    /** A variable without which {@code loadConfig} refuses to start. */
    static final Pattern REQUIRED = Pattern.compile("required\\(ENV\\.(\\w+)\\)");

    @Test
    void everyVariableTheWorkerRequiresIsSetByTheDeployment() throws Exception {
        String source = Files.readString(WORKER_CONFIG);
        Map<String, String> names = workerNames(source);
        Set<String> required = REQUIRED.matcher(source)
                .results()
                .map(match -> names.get(match.group(1)))
                .collect(Collectors.toSet());
        // Sanity: the parse found what the worker is known to require; an empty set would pass anything.
        assertThat(required)
                .contains(
                        "TALKIDE_TENANT",
                        "TALKIDE_ENV",
                        "TALKIDE_GATEWAY_BASE_URL",
                        "TALKIDE_WORKER_IDENTITY_TOKEN",
                        "TALKIDE_WORKER_COMMAND_KEY",
                        "CLAUDE_CONFIG_DIR")
                .doesNotContainNull();

        Map<String, EnvVar> env = environment();
        // The two secrets come as files of the mounted Secret instead (TALKIDE_WORKER_SECRETS_DIR), which the
        // worker takes in place of the variables; they must not be variables too.
        Set<String> secrets = Set.of("TALKIDE_WORKER_IDENTITY_TOKEN", "TALKIDE_WORKER_COMMAND_KEY");
        assertThat(source).contains("if (dir) {").contains("secretFiles(dir)");
        Set<String> needed =
                required.stream().filter(name -> !secrets.contains(name)).collect(Collectors.toSet());
        assertThat(env.keySet()).containsAll(needed).doesNotContainAnyElementsOf(secrets);
        needed.forEach(name -> assertThat(hasValue(env.get(name))).as(name).isTrue());
        String secretsDir = env.get("TALKIDE_WORKER_SECRETS_DIR").getValue();
        assertThat(pod().getContainers().get(0).getVolumeMounts())
                .anySatisfy(mount -> assertThat(mount.getMountPath()).isEqualTo(secretsDir));
    }

    @Test
    void everyVariableTheDeploymentSetsIsOneTheWorkerOrItsEngineReads() throws Exception {
        Set<String> known =
                Set.copyOf(workerNames(Files.readString(WORKER_CONFIG)).values());
        // HOME and TMPDIR are for Node, git and the engine (they inherit the worker's environment);
        // TALKIDE_CONTROL_PLANE_URL is the contract's (docs/worker-contract.md) for workers that report there.
        Set<String> forOthers = Set.of("HOME", "TMPDIR", "TALKIDE_CONTROL_PLANE_URL");
        assertThat(environment().keySet()).allMatch(name -> known.contains(name) || forOthers.contains(name));
    }

    @Test
    void everyPlaceTheWorkerWritesIsAWritableVolumeUnderTheReadOnlyRootFilesystem() {
        PodSpec pod = pod();
        Container worker = pod.getContainers().get(0);
        assertThat(worker.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        Map<String, EnvVar> env = environment();
        Map<String, Volume> volumes =
                pod.getVolumes().stream().collect(Collectors.toMap(Volume::getName, volume -> volume));
        for (String variable : List.of("CLAUDE_CONFIG_DIR", "TALKIDE_WORKSPACE_DIR", "HOME", "TMPDIR")) {
            String path = env.get(variable).getValue();
            VolumeMount mount = worker.getVolumeMounts().stream()
                    .filter(m -> path.equals(m.getMountPath()) || path.startsWith(m.getMountPath() + "/"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(variable + "=" + path + " is on the read-only root"));
            assertThat(mount.getReadOnly()).as(variable).isNotEqualTo(Boolean.TRUE);
            Volume volume = volumes.get(mount.getName());
            assertThat(volume.getEmptyDir() != null || volume.getPersistentVolumeClaim() != null)
                    .as(variable + " on a writable volume")
                    .isTrue();
        }
        // The scratch volumes are bounded: a runaway build must not fill the node.
        assertThat(pod.getVolumes())
                .filteredOn(volume -> volume.getEmptyDir() != null)
                .allSatisfy(volume ->
                        assertThat(volume.getEmptyDir().getSizeLimit()).isNotNull());
    }

    private static Map<String, String> workerNames(String source) {
        Matcher block = ENV_BLOCK.matcher(source);
        assertThat(block.find()).as("the ENV table in " + WORKER_CONFIG).isTrue();
        Map<String, String> names = new LinkedHashMap<>();
        ENV_ENTRY.matcher(block.group(1)).results().forEach(match -> names.put(match.group(1), match.group(2)));
        assertThat(names).isNotEmpty();
        return names;
    }

    private static boolean hasValue(EnvVar variable) {
        return variable.getValueFrom() != null
                || variable.getValue() != null && !variable.getValue().isBlank();
    }

    private static Map<String, EnvVar> environment() {
        return pod().getContainers().get(0).getEnv().stream()
                .collect(Collectors.toMap(EnvVar::getName, variable -> variable));
    }

    private static PodSpec pod() {
        return WorkerDeploymentBuilder.build(
                        TenantEnvironmentId.of("acme", "dev"),
                        ProvisioningFixtures.defaults(PROPERTIES),
                        PROPERTIES,
                        "2026-01-01T00:00:00Z")
                .getSpec()
                .getTemplate()
                .getSpec();
    }
}
