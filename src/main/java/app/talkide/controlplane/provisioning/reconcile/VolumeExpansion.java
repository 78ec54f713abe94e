package app.talkide.controlplane.provisioning.reconcile;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A bound claim's storage request can only grow (and only where its storage class allows expansion): the API
 * server refuses a smaller value. So the session volume's size is owned as a minimum: a claim already larger
 * than desired (grown by hand, or by an earlier, larger desired size) keeps its size, instead of a patch that
 * would fail on every pass and leave the tenant-environment degraded.
 */
final class VolumeExpansion {

    private static final String STORAGE = "storage";

    /** {@code desired}, with the live storage request when that is larger. */
    static PersistentVolumeClaim neverShrink(PersistentVolumeClaim desired, PersistentVolumeClaim live) {
        Quantity wanted = storage(desired);
        Quantity current = storage(live);
        if (wanted == null
                || current == null
                || Quantity.getAmountInBytes(current).compareTo(Quantity.getAmountInBytes(wanted)) <= 0) {
            return desired;
        }
        return new PersistentVolumeClaimBuilder(desired)
                .editSpec()
                .editResources()
                .addToRequests(STORAGE, new Quantity(current.toString()))
                .endResources()
                .endSpec()
                .build();
    }

    private static @Nullable Quantity storage(PersistentVolumeClaim claim) {
        if (claim.getSpec() == null || claim.getSpec().getResources() == null) {
            return null;
        }
        Map<String, Quantity> requests = claim.getSpec().getResources().getRequests();
        return requests == null ? null : requests.get(STORAGE);
    }

    private VolumeExpansion() {}
}
