/**
 * Leader election among control-plane replicas through a Kubernetes Lease: only the leader reconciles.
 * Named so other features that must run on one replica only (build dispatch) can follow
 * {@link app.talkide.controlplane.provisioning.leader.LeadershipChanged}.
 */
@NullMarked
@NamedInterface("leader")
package app.talkide.controlplane.provisioning.leader;

import org.jspecify.annotations.NullMarked;
import org.springframework.modulith.NamedInterface;
