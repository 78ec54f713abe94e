package app.talkide.controlplane.support;

import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The cluster of the real-cluster tests, so that the same tests run on any real Kubernetes: the one whose
 * kubeconfig {@value #KUBECONFIG} names (the cluster {@code scripts/cluster/up} starts on a plain machine,
 * Kubernetes 1.20), or else K3s (current Kubernetes) through Testcontainers where Docker runs (GitLab CI). With
 * neither, starting K3s fails the test: a selected real-cluster test never skips.
 *
 * <p>Images the tests run besides the worker come from {@value #SHELL_IMAGE} (a busybox: {@code /bin/busybox}) and
 * {@value #GRADLE_IMAGE}, defaulting to public images for K3s; the local cluster has no registry and sets both.
 */
public final class RealCluster {

    public static final String KUBECONFIG = "TALKIDE_TEST_KUBECONFIG";
    public static final String SHELL_IMAGE = "TALKIDE_REAL_CLUSTER_SHELL_IMAGE";
    public static final String GRADLE_IMAGE = "TALKIDE_REAL_CLUSTER_GRADLE_IMAGE";
    /** Where on the node hostPath volumes go; the local cluster puts them under its state, which down removes. */
    public static final String NODE_DIRECTORY = "TALKIDE_REAL_CLUSTER_NODE_DIR";

    private static K3sContainer k3s;

    private RealCluster() {}

    /** The kubeconfig (YAML) of an administrator of the cluster. */
    public static synchronized String adminKubeconfig() {
        String path = System.getenv(KUBECONFIG);
        if (path != null && !path.isBlank()) {
            try {
                return Files.readString(Path.of(path));
            } catch (IOException e) {
                throw new UncheckedIOException(KUBECONFIG + "=" + path + " cannot be read", e);
            }
        }
        if (k3s == null) {
            K3sContainer container = new K3sContainer(DockerImageName.parse("rancher/k3s:v1.31.4-k3s1"));
            container.start(); // stopped with the JVM (Testcontainers' reaper)
            k3s = container;
        }
        return k3s.getKubeConfigYaml();
    }

    public static KubernetesClient admin() {
        return new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(adminKubeconfig()))
                .build();
    }

    /** Whether the API server is at least {@code major.minor}: what older clusters lack is asserted only where it exists. */
    public static boolean serverAtLeast(KubernetesClient client, int major, int minor) {
        VersionInfo version = client.getKubernetesVersion();
        int serverMajor = leadingNumber(version.getMajor());
        int serverMinor = leadingNumber(version.getMinor());
        return serverMajor > major || (serverMajor == major && serverMinor >= minor);
    }

    public static String shellImage() {
        return image(SHELL_IMAGE, "busybox:1.37");
    }

    public static String gradleImage() {
        return image(GRADLE_IMAGE, "gradle:8.14-jdk21");
    }

    /**
     * A directory on the (one) node, world-writable, for hostPath volumes; returns its path. Made by a short pod
     * (root, hostPath {@code DirectoryOrCreate}) so that it works the same on any cluster, whatever the node is.
     */
    public static String nodeDirectory(KubernetesClient client, String namespace, String directory) {
        String base = System.getenv(NODE_DIRECTORY);
        String path = (base == null || base.isBlank() ? "/srv/talkide" : base) + "/" + directory;
        String name = "node-dir-" + directory;
        client.pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .withRestartPolicy("Never")
                        .withNewSecurityContext()
                        .withRunAsUser(0L)
                        .endSecurityContext()
                        .addNewContainer()
                        .withName("mkdir")
                        .withImage(shellImage())
                        .withImagePullPolicy("IfNotPresent")
                        .withCommand("/bin/busybox", "chmod", "0777", "/node-dir")
                        .addNewVolumeMount()
                        .withName("dir")
                        .withMountPath("/node-dir")
                        .endVolumeMount()
                        .endContainer()
                        .addNewVolume()
                        .withName("dir")
                        .withNewHostPath()
                        .withPath(path)
                        .withType("DirectoryOrCreate")
                        .endHostPath()
                        .endVolume()
                        .endSpec()
                        .build())
                .create();
        Awaitility.await().atMost(Duration.ofMinutes(3)).until(() -> {
            var pod = client.pods().inNamespace(namespace).withName(name).get();
            String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
            if ("Failed".equals(phase)) {
                throw new IllegalStateException("could not prepare " + path + " on the node");
            }
            return "Succeeded".equals(phase);
        });
        client.pods().inNamespace(namespace).withName(name).delete();
        return path;
    }

    /**
     * A statically provisioned hostPath PersistentVolume of {@code storageClass} (made, with no provisioner, when
     * missing), on a world-writable directory of the node: storage that binds on any one-node cluster.
     */
    public static void hostPathVolume(
            KubernetesClient client, String helperNamespace, String storageClass, String name, String accessMode) {
        String path = nodeDirectory(client, helperNamespace, name);
        client.storage()
                .v1()
                .storageClasses()
                .resource(new StorageClassBuilder()
                        .withNewMetadata()
                        .withName(storageClass)
                        .endMetadata()
                        .withProvisioner("kubernetes.io/no-provisioner")
                        .withVolumeBindingMode("Immediate")
                        .build())
                .createOr(NonDeletingOperation::update);
        client.persistentVolumes()
                .resource(new PersistentVolumeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .withStorageClassName(storageClass)
                        .withAccessModes(accessMode)
                        .addToCapacity(
                                "storage", new Quantity("100Gi")) // nominal for hostPath; a claim asks for up to this
                        .withNewHostPath()
                        .withPath(path)
                        .withType("Directory")
                        .endHostPath()
                        .endSpec()
                        .build())
                .createOr(NonDeletingOperation::update);
    }

    private static String image(String variable, String k3sDefault) {
        String value = System.getenv(variable);
        if (value != null && !value.isBlank()) {
            return value;
        }
        if (System.getenv(KUBECONFIG) != null && !System.getenv(KUBECONFIG).isBlank()) {
            throw new IllegalStateException(variable + " must name an image the cluster of " + KUBECONFIG
                    + " has (scripts/cluster/e2e sets it)");
        }
        return k3sDefault;
    }

    private static int leadingNumber(String text) {
        String digits = text.replaceFirst("^(\\d+).*$", "$1");
        return Integer.parseInt(digits);
    }
}
