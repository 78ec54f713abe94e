/**
 * The Anthropic gateway-proxy: the only way workers reach the Anthropic API. Validates the caller,
 * reserves budget, forwards with the one API key, streams the answer back byte for byte and settles
 * the actual cost.
 */
@NullMarked
package app.talkide.controlplane.gateway;

import org.jspecify.annotations.NullMarked;
