/**
 * Local development's stand-ins for what production gets from outside: the Anthropic API simulator
 * ({@code simulator}), the in-process reference worker ({@code referenceworker}) and the stand-in for a
 * cluster that seeds {@code demo/dev} and runs those workers ({@code runtime}). Production code never
 * depends on this module; it only plugs into their seams ({@code WorkerRuntime}, the gateway's upstream).
 */
@NullMarked
package app.talkide.controlplane.local;

import org.jspecify.annotations.NullMarked;
