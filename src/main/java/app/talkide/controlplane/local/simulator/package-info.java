/**
 * The built-in Anthropic Messages API simulator: a small HTTP server on loopback that speaks the real
 * wire format (streaming and not, {@code count_tokens}, errors), answers deterministically from the
 * prompt, counts tokens plausibly and paces its streams like a model. Local mode uses it as the
 * gateway's upstream when no {@code ANTHROPIC_API_KEY} is configured; production never starts it.
 */
@NullMarked
package app.talkide.controlplane.local.simulator;

import org.jspecify.annotations.NullMarked;
