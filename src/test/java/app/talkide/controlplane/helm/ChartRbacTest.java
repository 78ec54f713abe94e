package app.talkide.controlplane.helm;

import static app.talkide.controlplane.helm.RenderedChart.at;
import static app.talkide.controlplane.helm.RenderedChart.kinds;
import static app.talkide.controlplane.helm.RenderedChart.named;
import static app.talkide.controlplane.helm.RenderedChart.render;
import static app.talkide.controlplane.helm.RenderedChart.strings;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ProvisioningApiCalls;
import app.talkide.controlplane.provisioning.ProvisioningApiCalls.Call;
import app.talkide.controlplane.provisioning.ProvisioningApiCalls.Scope;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The chart's RBAC grants exactly the API calls the control plane makes ({@link ProvisioningApiCalls}, which
 * the reconciler tests check against what the mock API server saw): nothing missing, nothing more.
 */
class ChartRbacTest {

    static final String PROVISIONER = "talkide-talkide-control-plane-provisioner";
    static final String TENANT = "talkide-talkide-control-plane-tenant";
    static final String LEADER = "talkide-talkide-control-plane-leader-election";

    final List<Map<String, Object>> objects = render(UnaryOperator.identity());

    @Test
    void everyRoleGrantsExactlyTheCallsListedForItsScope() {
        assertThat(grants(named(objects, "ClusterRole", PROVISIONER)))
                .containsExactlyInAnyOrderElementsOf(listed(Scope.CLUSTER));
        assertThat(grants(named(objects, "ClusterRole", TENANT)))
                .containsExactlyInAnyOrderElementsOf(listed(Scope.TENANT));
        assertThat(grants(named(objects, "Role", LEADER))).containsExactlyInAnyOrderElementsOf(listed(Scope.RELEASE));
    }

    @Test
    void onlyTheProvisionerIsBoundClusterWideAndTheTenantRoleIsBoundByNothingInTheChart() {
        List<Map<String, Object>> bindings = objects.stream()
                .filter(o -> "ClusterRoleBinding".equals(o.get("kind")))
                .toList();
        assertThat(bindings)
                .singleElement()
                .satisfies(binding -> assertThat(RenderedChart.<String>at(binding, "roleRef.name"))
                        .isEqualTo(PROVISIONER));
        assertThat(objects)
                .filteredOn(o -> "RoleBinding".equals(o.get("kind")))
                .allSatisfy(binding -> assertThat(RenderedChart.<String>at(binding, "roleRef.name"))
                        .isNotEqualTo(TENANT));
    }

    @Test
    void noRuleUsesAWildcardOrEscalationVerbAndBindIsNarrowedToTheTenantRole() {
        for (String kind : List.of("ClusterRole", "Role")) {
            objects.stream().filter(o -> kind.equals(o.get("kind"))).forEach(role -> {
                List<Map<String, Object>> rules = at(role, "rules");
                assertThat(rules).isNotEmpty().allSatisfy(rule -> {
                    assertThat(strings(rule.get("verbs"))).doesNotContain("*", "escalate", "impersonate");
                    assertThat(strings(rule.get("resources"))).doesNotContain("*");
                    assertThat(strings(rule.get("apiGroups"))).doesNotContain("*");
                    if (strings(rule.get("verbs")).contains("bind")) {
                        assertThat(strings(rule.get("resourceNames"))).containsExactly(TENANT);
                    }
                });
            });
        }
    }

    @Test
    void theAdmissionPolicyNamesTheControlPlanesServiceAccountAndCanBeTurnedOff() {
        Map<String, Object> policy =
                named(objects, "ValidatingAdmissionPolicy", "talkide-talkide-control-plane-tenant-writes");
        assertThat(RenderedChart.text(policy, "spec.matchConditions[0].expression"))
                .contains("system:serviceaccount:talkide-prod:talkide-talkide-control-plane");
        assertThat(kinds(objects))
                .filteredOn("ValidatingAdmissionPolicyBinding"::equals)
                .hasSize(2);
        assertThat(kinds(render(t -> t.set("admissionPolicy.enabled", false))))
                .doesNotContain("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
    }

    private static Set<Call> listed(Scope scope) {
        Set<Call> calls = new LinkedHashSet<>();
        for (Call call : ProvisioningApiCalls.CALLS) {
            if (call.scope() == scope) {
                calls.add(
                        call.resourceName() == null
                                ? call
                                : new Call(scope, call.group(), call.resource(), call.verb(), TENANT));
            }
        }
        return calls;
    }

    private static Set<Call> grants(Map<String, Object> role) {
        Scope scope = "Role".equals(role.get("kind"))
                ? Scope.RELEASE
                : at(role, "metadata.name").equals(PROVISIONER) ? Scope.CLUSTER : Scope.TENANT;
        Set<Call> grants = new LinkedHashSet<>();
        List<Map<String, Object>> rules = at(role, "rules");
        for (Map<String, Object> rule : rules) {
            List<String> names = strings(rule.get("resourceNames"));
            for (String group : strings(rule.get("apiGroups"))) {
                for (String resource : strings(rule.get("resources"))) {
                    for (String verb : strings(rule.get("verbs"))) {
                        if (names.isEmpty()) {
                            grants.add(Call.of(scope, group, resource, verb));
                        }
                        for (String name : names) {
                            grants.add(new Call(scope, group, resource, verb, name));
                        }
                    }
                }
            }
        }
        return grants;
    }
}
