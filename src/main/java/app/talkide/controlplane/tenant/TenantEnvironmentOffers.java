package app.talkide.controlplane.tenant;

/**
 * Whether a tenant-environment may be offered to its users: the cut-over gate's decision (package
 * {@code gate}), asked where users pick a tenant-environment or start a conversation. An interface here,
 * so those features need not depend on the gate, which itself runs conversations.
 */
public interface TenantEnvironmentOffers {

    boolean offered(TenantEnvironmentId id);
}
