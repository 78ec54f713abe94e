/**
 * Identity-token rotation in the cluster: a new token into the worker's Secret, the Deployment rolled,
 * the old token retired after the grace period; automatic at 80 % of a token's lifetime, on demand via
 * the admin API, and finished after a restart from what the token table and the cluster show.
 */
@NullMarked
package app.talkide.controlplane.provisioning.rotation;

import org.jspecify.annotations.NullMarked;
