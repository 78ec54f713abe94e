/**
 * Command tokens: how a worker knows a call came from the control plane. The control plane signs each
 * call with the tenant-environment's command key, binding method, path and body (like RFC 9449 DPoP
 * proofs); the worker verifies with the same key from its Secret and refuses replays. This package signs
 * and derives the keys; the verifier is in {@code workercontract}, which workers share.
 */
@NamedInterface("command")
@NullMarked
package app.talkide.controlplane.token.command;

import org.jspecify.annotations.NullMarked;
import org.springframework.modulith.NamedInterface;
