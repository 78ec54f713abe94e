package app.talkide.controlplane.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Every kind of Kubernetes API call the control plane makes, maintained by hand and checked both ways: the
 * reconciler tests fail on a call the mock API server saw that is not listed here ({@link #assertListed}),
 * and {@code ChartRbacTest} fails when the chart grants anything not listed here or misses something that is.
 */
public final class ProvisioningApiCalls {

    /** Where the call is authorized: which of the chart's roles must grant it. */
    public enum Scope {
        /** Cluster-scoped, or across all namespaces: the provisioner ClusterRole (ClusterRoleBinding). */
        CLUSTER,
        /** Inside a tenant namespace: the tenant ClusterRole, bound there by the control plane's own RoleBinding. */
        TENANT,
        /** In the release's namespace: the leader-election Role. */
        RELEASE
    }

    /** One permission: verb on group/resource in a scope ({@code resourceName} only where RBAC narrows it). */
    public record Call(
            Scope scope,
            String group,
            String resource,
            String verb,
            @Nullable String resourceName) {

        public static Call of(Scope scope, String group, String resource, String verb) {
            return new Call(scope, group, resource, verb, null);
        }
    }

    private static final List<String> TENANT_KINDS = List.of(
            "/serviceaccounts",
            "/secrets",
            "/services",
            "/persistentvolumeclaims",
            "/resourcequotas",
            "/limitranges",
            "apps/deployments",
            "networking.k8s.io/networkpolicies",
            "rbac.authorization.k8s.io/roles",
            "rbac.authorization.k8s.io/rolebindings");

    /** Stands for the tenant ClusterRole's name, which depends on the Helm release. */
    public static final String TENANT_ROLE = "(tenant ClusterRole)";

    public static final Set<Call> CALLS = calls();

    private ProvisioningApiCalls() {}

    private static Set<Call> calls() {
        var calls = new java.util.LinkedHashSet<Call>();
        // Namespaces: read, create, repair labels, delete; list/watch for the bounded wait until one is gone.
        for (String verb : List.of("get", "list", "watch", "create", "patch", "delete")) {
            calls.add(Call.of(Scope.CLUSTER, "", "namespaces", verb));
        }
        // Every replica's readiness informer on the managed worker Deployments in all namespaces.
        calls.add(Call.of(Scope.CLUSTER, "apps", "deployments", "list"));
        calls.add(Call.of(Scope.CLUSTER, "apps", "deployments", "watch"));
        // The first write in a new namespace: the control plane's own RoleBinding (create cannot be narrowed
        // by name; the optional ValidatingAdmissionPolicy confines it to managed namespaces), and bind on the
        // one ClusterRole it binds there.
        calls.add(Call.of(Scope.CLUSTER, "rbac.authorization.k8s.io", "rolebindings", "create"));
        calls.add(new Call(Scope.CLUSTER, "rbac.authorization.k8s.io", "clusterroles", "bind", TENANT_ROLE));
        // Inside a tenant namespace: apply (get, create, patch) and deprovision (delete) each kind.
        for (String kind : TENANT_KINDS) {
            String[] parts = kind.split("/");
            for (String verb : List.of("get", "create", "patch", "delete")) {
                calls.add(Call.of(Scope.TENANT, parts[0], parts[1], verb));
            }
        }
        // Builds (package build.job): the leader's informer on build Jobs everywhere; inside a tenant
        // namespace create and cancel a Job, find its pod, read its log.
        calls.add(Call.of(Scope.CLUSTER, "batch", "jobs", "list"));
        calls.add(Call.of(Scope.CLUSTER, "batch", "jobs", "watch"));
        calls.add(Call.of(Scope.TENANT, "batch", "jobs", "create"));
        calls.add(Call.of(Scope.TENANT, "batch", "jobs", "delete"));
        calls.add(Call.of(Scope.TENANT, "", "pods", "list"));
        calls.add(Call.of(Scope.TENANT, "", "pods/log", "get"));
        // Leader election: fabric8 reads the Lease, creates it once, then renews it.
        for (String verb : List.of("get", "create", "update", "patch")) {
            calls.add(Call.of(Scope.RELEASE, "coordination.k8s.io", "leases", verb));
        }
        return java.util.Collections.unmodifiableSet(calls);
    }

    /** Fails on any recorded "METHOD path" call that this list does not name. */
    public static void assertListed(List<String> recorded, String releaseNamespace) {
        Set<Call> unlisted = recorded.stream()
                .map(line -> parse(line, releaseNamespace))
                .filter(call -> !CALLS.contains(call))
                .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
        assertThat(unlisted).as("API calls the chart does not grant").isEmpty();
        assertThat(recorded)
                .as("every write names the control plane as its field manager")
                .filteredOn(line -> line.startsWith("POST ") || line.startsWith("PUT ") || line.startsWith("PATCH "))
                .allMatch(line -> line.contains("fieldManager=talkide-control-plane"));
    }

    /** Turns a recorded request line into the permission it needs, as the API server's authorizer would. */
    static Call parse(String line, String releaseNamespace) {
        String method = line.substring(0, line.indexOf(' '));
        URI uri = URI.create(line.substring(line.indexOf(' ') + 1));
        boolean watch = uri.getQuery() != null && uri.getQuery().contains("watch=true");
        List<String> segments = Arrays.stream(uri.getPath().split("/"))
                .filter(s -> !s.isEmpty())
                .toList();
        String group = segments.get(0).equals("api") ? "" : segments.get(1);
        List<String> rest = segments.subList(segments.get(0).equals("api") ? 2 : 3, segments.size());
        String namespace = null;
        if (rest.get(0).equals("namespaces") && rest.size() >= 3) {
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size());
        }
        String resource = rest.get(0) + (rest.size() > 2 ? "/" + rest.get(2) : "");
        boolean named = rest.size() > 1;
        String verb = switch (method) {
            case "GET" -> named ? "get" : watch ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> method;
        };
        Scope scope =
                namespace == null ? Scope.CLUSTER : namespace.equals(releaseNamespace) ? Scope.RELEASE : Scope.TENANT;
        return Call.of(scope, group, resource, verb);
    }
}
