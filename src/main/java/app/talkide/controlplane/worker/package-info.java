/** Workers as the control plane sees them: where each tenant-environment's worker runs and whether it is ready. */
@NullMarked
package app.talkide.controlplane.worker;

import org.jspecify.annotations.NullMarked;
