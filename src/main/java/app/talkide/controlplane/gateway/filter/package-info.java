/**
 * What may pass through the gateway: the two paths it serves, the request headers that reach the
 * upstream (never the caller's credentials), the response headers that reach the worker, and the
 * Anthropic-shaped answer to a refused WorkerToken.
 */
@NullMarked
package app.talkide.controlplane.gateway.filter;

import org.jspecify.annotations.NullMarked;
