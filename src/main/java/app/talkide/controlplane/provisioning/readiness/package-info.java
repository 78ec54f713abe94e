/**
 * Worker readiness from an informer on the managed Deployments: the {@code kubernetes} worker runtime,
 * readiness events for browsers, and the tenant-environment status the leader writes.
 */
@NullMarked
package app.talkide.controlplane.provisioning.readiness;

import org.jspecify.annotations.NullMarked;
