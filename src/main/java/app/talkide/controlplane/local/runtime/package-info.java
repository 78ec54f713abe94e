/**
 * Local mode's stand-in for a cluster: seeds the {@code demo/dev} tenant-environment, gives each
 * tenant-environment's embedded worker a directory under the data directory (a Secret-like directory with
 * its identity token and command key, its sessions, and a working tree that is a git repository of its
 * own), runs those workers, and is the {@code local} {@code WorkerRuntime} that says where they listen.
 */
@NullMarked
package app.talkide.controlplane.local.runtime;

import org.jspecify.annotations.NullMarked;
