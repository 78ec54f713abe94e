/**
 * The reference worker: an in-process stand-in for the Node worker pod that speaks exactly the worker
 * contract over real HTTP (docs/worker-contract.md). It verifies command tokens, keeps each session's
 * transcript and event stream under its config directory (the {@code CLAUDE_CONFIG_DIR} equivalent),
 * and runs turns through its own local gateway proxy that mints a fresh WorkerToken per request. It uses
 * no Spring beans: it is configured like a worker pod, from environment-style settings.
 */
@NullMarked
package app.talkide.controlplane.local.referenceworker;

import org.jspecify.annotations.NullMarked;
