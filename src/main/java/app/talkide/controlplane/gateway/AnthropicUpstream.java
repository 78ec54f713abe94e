package app.talkide.controlplane.gateway;

import java.net.URI;

/**
 * Where the gateway sends Anthropic calls, and with which key. Production: the configured base URL
 * (default {@code https://api.anthropic.com}) and {@code ANTHROPIC_API_KEY}. Local mode without a key:
 * the built-in simulator on loopback. Exactly one implementation is active.
 */
public interface AnthropicUpstream {

    /** Base URL the API paths ({@code /v1/messages}) are appended to. */
    URI baseUrl();

    /** The key sent as {@code x-api-key}. Never log it, put it in an error, a metric or a trace. */
    String apiKey();

    /** Says in words what this upstream is, for the startup log (never contains the key). */
    String description();
}
