/**
 * Reads usage from responses as their bytes pass, without holding a body: server-sent events are split
 * and metered one event at a time, JSON bodies are scanned with a non-blocking parser.
 */
@NullMarked
package app.talkide.controlplane.gateway.metering;

import org.jspecify.annotations.NullMarked;
