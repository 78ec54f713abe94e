/**
 * The gateway's way out: the configured Anthropic upstream (when an API key is set, or in production)
 * and the HTTP client that calls whichever {@code AnthropicUpstream} is active.
 */
@NullMarked
package app.talkide.controlplane.gateway.upstream;

import org.jspecify.annotations.NullMarked;
