package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/** The build placement each tenant-environment's desired state sets, for the build feature to fill in. */
public interface BuildPlacements {

    /** As stored, unset fields {@code null}; {@link BuildPlacement#UNSET} for one that never set any. */
    BuildPlacement buildPlacement(TenantEnvironmentId id);
}
