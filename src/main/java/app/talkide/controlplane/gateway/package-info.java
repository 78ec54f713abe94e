/**
 * The Anthropic gateway-proxy: the only way workers reach the Anthropic API. Validates the caller,
 * reserves budget, forwards with the one API key, streams the answer back byte for byte and settles
 * the actual cost. The request pipeline shows in the subpackages: {@code filter} (the door: firewall,
 * WorkerToken check, refusals) → {@code handler} (the call: path, body, budget, headers, relay,
 * settlement) → {@code upstream} (the HTTP client and where it points), with {@code metering} and
 * {@code pricing} beside them.
 */
@NullMarked
package app.talkide.controlplane.gateway;

import org.jspecify.annotations.NullMarked;
