package app.talkide.controlplane.tenant;

/**
 * A tenant-environment went to {@code DELETING} or {@code DELETED}: nothing may act in it any more.
 * Published inside the status change's transaction.
 */
public record TenantEnvironmentClosed(TenantEnvironmentId id) {}
