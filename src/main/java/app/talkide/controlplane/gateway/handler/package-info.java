/**
 * One admitted gateway call from start to end: routed by its path, then read and check the body, reserve
 * budget, call the upstream with the allowed headers, relay the answer event by event while metering it
 * and extending the reservation, pass back the allowed response headers, then settle.
 */
@NullMarked
package app.talkide.controlplane.gateway.handler;

import org.jspecify.annotations.NullMarked;
