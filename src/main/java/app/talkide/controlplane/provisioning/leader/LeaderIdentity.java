package app.talkide.controlplane.provisioning.leader;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** Who this replica is in the Lease, and where the Lease lives, from settings or the pod's environment. */
final class LeaderIdentity {

    private LeaderIdentity() {}

    static String resolve(@Nullable String configured) {
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        String pod = System.getenv("TALKIDE_POD_NAME");
        if (pod != null && !pod.isBlank()) {
            return pod;
        }
        return hostName() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static String leaseNamespace(@Nullable String configured, @Nullable String clientNamespace) {
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        String pod = System.getenv("TALKIDE_POD_NAMESPACE");
        if (pod != null && !pod.isBlank()) {
            return pod;
        }
        return clientNamespace != null && !clientNamespace.isBlank() ? clientNamespace : "default";
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "talkide-control-plane";
        }
    }
}
