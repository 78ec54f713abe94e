/**
 * One gateway call from start to end: taken off the servlet chain before Spring Security (firewall and
 * WorkerToken check done here), routed, then read and check the body, reserve budget, call the upstream,
 * relay the answer event by event while metering it and extending the reservation, then settle.
 */
@NullMarked
package app.talkide.controlplane.gateway.handler;

import org.jspecify.annotations.NullMarked;
