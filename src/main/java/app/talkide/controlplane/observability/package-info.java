/**
 * What an operator sees of a request: the ids every log line carries ({@link LogContext}) and the W3C
 * trace context that follows a user message across the control plane and its workers ({@link Traces}).
 */
@NullMarked
package app.talkide.controlplane.observability;

import org.jspecify.annotations.NullMarked;
