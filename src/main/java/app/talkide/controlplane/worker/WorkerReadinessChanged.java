package app.talkide.controlplane.worker;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/** A worker became ready, or stopped being ready. Published by the active {@link WorkerRuntime}. */
public record WorkerReadinessChanged(TenantEnvironmentId tenantEnvironment, WorkerReadiness readiness, String detail) {}
