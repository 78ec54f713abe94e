/**
 * Provisioning of tenant-environments in Kubernetes: desired state, pure builders of the objects each
 * one owns, an idempotent apply, leader election, readiness and identity-token rotation.
 */
@NullMarked
package app.talkide.controlplane.provisioning;

import org.jspecify.annotations.NullMarked;
