/**
 * Build Jobs for workers: a worker asks ({@code /api/internal/worker/builds}, WorkerToken of the
 * conversation), the control plane queues the build per tenant-environment, the leader runs it as a
 * Kubernetes Job ({@code job}) and keeps its state and log; see docs/builds.md.
 */
@NullMarked
package app.talkide.controlplane.builds;

import org.jspecify.annotations.NullMarked;
