/**
 * When the leader reconciles: a periodic resync of every tenant-environment, an immediate pass on a
 * desired-state change, one pass at a time per tenant-environment, failures retried with backoff.
 */
@NullMarked
package app.talkide.controlplane.provisioning.schedule;

import org.jspecify.annotations.NullMarked;
