/**
 * One gateway call from start to end: read and check the body, reserve budget, call the upstream,
 * relay the answer event by event while metering it and extending the reservation, then settle.
 */
@NullMarked
package app.talkide.controlplane.gateway.handler;

import org.jspecify.annotations.NullMarked;
