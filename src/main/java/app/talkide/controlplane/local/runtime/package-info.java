/**
 * Local mode's stand-in for a cluster: seeds the {@code demo/dev} tenant-environment, hands each
 * tenant-environment's embedded reference worker its identity token and command key through a
 * Secret-like directory under the data directory, runs those workers, and is the {@code local}
 * {@code WorkerRuntime} that says where they listen.
 */
@NullMarked
package app.talkide.controlplane.local.runtime;

import org.jspecify.annotations.NullMarked;
