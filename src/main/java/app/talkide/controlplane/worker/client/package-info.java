/**
 * The control plane's HTTP client for workers: every command signed with a command token, and the
 * session event stream read as server-sent events.
 */
@NullMarked
package app.talkide.controlplane.worker.client;

import org.jspecify.annotations.NullMarked;
