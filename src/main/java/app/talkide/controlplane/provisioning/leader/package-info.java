/** Leader election among control-plane replicas through a Kubernetes Lease: only the leader reconciles. */
@NullMarked
package app.talkide.controlplane.provisioning.leader;

import org.jspecify.annotations.NullMarked;
