/** Cross-cutting plumbing every feature shares: run mode, clock, security chains for people, RFC 9457 errors. */
@NullMarked
package app.talkide.controlplane.system;

import org.jspecify.annotations.NullMarked;
