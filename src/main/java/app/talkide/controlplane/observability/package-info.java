/**
 * What an operator sees of a request: the ids every log line carries ({@link LogContext}), the W3C
 * trace context that follows a user message across the control plane and its workers ({@link Traces}),
 * and the count of log events by level ({@link LogEventCounter}).
 */
@NullMarked
package app.talkide.controlplane.observability;

import org.jspecify.annotations.NullMarked;
