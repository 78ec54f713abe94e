/**
 * The desired state of each tenant-environment: stored, validated, served by the admin API, and announced
 * with {@link app.talkide.controlplane.provisioning.DesiredStateChanged} when it changes.
 */
@NullMarked
package app.talkide.controlplane.provisioning.desired;

import org.jspecify.annotations.NullMarked;
