/**
 * The cut-over gate: per tenant-environment, a verification that runs a real conversation
 * through the whole worker path (and a build, where builds are enabled), on demand and after the worker
 * changed; a tenant-environment is offered to users only after it passed or an operator override is
 * recorded. See docs/builds.md, "Cut-over gate".
 */
@NullMarked
package app.talkide.controlplane.gate;

import org.jspecify.annotations.NullMarked;
