/**
 * The gateway's door: the servlet filter that takes every request under its prefix off the servlet chain
 * before Spring Security, applies the firewall and the WorkerToken check, answers what it refuses in
 * Anthropic's shape and hands the rest to the handler.
 */
@NullMarked
package app.talkide.controlplane.gateway.filter;

import org.jspecify.annotations.NullMarked;
