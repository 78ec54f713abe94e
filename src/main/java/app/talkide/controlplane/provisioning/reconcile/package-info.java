/**
 * The idempotent apply of a tenant-environment's objects (no writes when the cluster matches), drift repair,
 * the foreign-namespace guard, the worker Secret's tokens, and deprovisioning.
 */
@NullMarked
package app.talkide.controlplane.provisioning.reconcile;

import org.jspecify.annotations.NullMarked;
