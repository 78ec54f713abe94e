package app.talkide.controlplane.provisioning.desired;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a tenant-environment's egress allow-list: an IP block the worker (and its build Jobs) may
 * connect to, e.g. a package registry or a Git host. NetworkPolicies match addresses, not host names.
 *
 * @param cidr an IPv4 or IPv6 block, e.g. {@code 203.0.113.0/24}; link-local addresses are never reachable
 * @param ports TCP ports; empty or unset means every port
 */
public record EgressRule(String cidr, @Nullable List<Integer> ports) {

    public EgressRule {
        ports = ports == null ? List.of() : List.copyOf(ports);
    }
}
