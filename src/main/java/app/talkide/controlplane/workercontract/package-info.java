/**
 * What both sides of the control plane ↔ worker contract share (docs/worker-contract.md), with no Spring
 * dependencies so any worker can use it: command-token verification and its replay cache, strict JWS
 * parsing, the server-sent-events reader, and the worker Secret's key names. Signing and the keys
 * themselves stay in {@code token}.
 */
@NullMarked
package app.talkide.controlplane.workercontract;

import org.jspecify.annotations.NullMarked;
