package app.talkide.controlplane.gateway;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The Anthropic gateway-proxy.
 *
 * @param apiKey the one Anthropic API key ({@code ANTHROPIC_API_KEY}); never logged or echoed. In local
 *     mode, unset means the built-in simulator answers instead
 * @param upstreamUrl the Anthropic API base URL the {@code /v1/...} paths are appended to
 * @param anthropicVersion the {@code anthropic-version} sent when the caller sent none
 * @param connectTimeout how long to wait for a connection to the upstream (then 502)
 * @param responseTimeout how long to wait for the upstream's response headers (then 504); a
 *     non-streaming call only answers when it is done, so this is generous
 * @param streamIdleTimeout how long a stream may go without a byte from the upstream before the gateway
 *     ends it with an error event; the API sends pings while it works, so silence means a dead connection.
 *     A JSON body (sent whole once its headers are out) silent this long mid-way is cut off as well
 * @param maxRequestSize the largest request body accepted (then 413); the Messages API's own limit is 32 MB
 * @param maxBytesInFlight the most request-body bytes all gateway calls of this replica may hold at once
 *     (then 529 {@code overloaded_error}, which the SDKs retry); at least twice {@code max-request-size}
 * @param maxBytesInFlightPerUser the most of those bytes one user's calls may hold (then 429 {@code fair_use}),
 *     so one user's slow uploads cannot take every other user's share; at least twice {@code max-request-size}
 * @param bodyReadTimeout how long a request body may take to arrive in all (then 408), however often bytes
 *     trickle in: the server's idle timeout restarts on every byte, this does not
 * @param outputSliceTokens output tokens reserved up front and added per extension while a stream runs
 * @param pricing prices per model family
 * @param upstreamClient which HTTP client calls the upstream: {@code jetty} (Jetty's HttpClient, on the
 *     server's own Jetty) or {@code jdk} (the JDK's HttpClient)
 */
@Validated
@ConfigurationProperties("talkide.gateway")
public record GatewayProperties(
        String apiKey,
        @NotNull @DefaultValue("https://api.anthropic.com") URI upstreamUrl,
        @NotBlank @DefaultValue("2023-06-01") String anthropicVersion,
        @NotNull @DefaultValue("10s") Duration connectTimeout,
        @NotNull @DefaultValue("10m") Duration responseTimeout,
        @NotNull @DefaultValue("3m") Duration streamIdleTimeout,
        @NotNull @DefaultValue("32MB") DataSize maxRequestSize,
        @NotNull @DefaultValue("256MB") DataSize maxBytesInFlight,
        @NotNull @DefaultValue("64MB") DataSize maxBytesInFlightPerUser,
        @NotNull @DefaultValue("60s") Duration bodyReadTimeout,
        @Positive @DefaultValue("4096") int outputSliceTokens,
        @Valid @DefaultValue Pricing pricing,
        @NotNull @DefaultValue("jetty") UpstreamClientKind upstreamClient) {

    public GatewayProperties {
        apiKey = apiKey == null ? "" : apiKey.strip();
    }

    /** The HTTP clients the gateway can call its upstream with. */
    public enum UpstreamClientKind {
        JETTY,
        JDK
    }

    /**
     * Prices in micro-dollars per million tokens. The built-in families (opus, sonnet, haiku, at the
     * list prices of Claude Opus 4.5+, Sonnet 4.x and Haiku 4.5) apply unless a family of the same name
     * is configured here.
     *
     * @param families extra or replacing families by name
     * @param cacheWrite5mPercent price of a 5-minute cache write, in percent of the input price
     * @param cacheWrite1hPercent price of a 1-hour cache write, in percent of the input price
     * @param cacheReadPercent price of a cache read, in percent of the input price
     */
    public record Pricing(
            @DefaultValue Map<String, @Valid Family> families,
            @PositiveOrZero @DefaultValue("125") int cacheWrite5mPercent,
            @PositiveOrZero @DefaultValue("200") int cacheWrite1hPercent,
            @PositiveOrZero @DefaultValue("10") int cacheReadPercent) {}

    /**
     * @param models model-id patterns with {@code *} wildcards, e.g. {@code claude-opus-*}; the most
     *     specific matching pattern of all families wins
     * @param inputPerMillion micro-dollars per million input tokens ($5 = 5000000)
     * @param outputPerMillion micro-dollars per million output tokens
     */
    public record Family(
            @NotEmpty List<String> models,
            @PositiveOrZero long inputPerMillion,
            @PositiveOrZero long outputPerMillion) {}

    @Override
    public String toString() {
        return "GatewayProperties[apiKey=<redacted>, upstreamUrl=" + upstreamUrl + ", anthropicVersion="
                + anthropicVersion + ", connectTimeout=" + connectTimeout + ", responseTimeout=" + responseTimeout
                + ", streamIdleTimeout=" + streamIdleTimeout + ", maxRequestSize=" + maxRequestSize
                + ", maxBytesInFlight=" + maxBytesInFlight + ", maxBytesInFlightPerUser=" + maxBytesInFlightPerUser
                + ", bodyReadTimeout=" + bodyReadTimeout
                + ", outputSliceTokens=" + outputSliceTokens + ", pricing="
                + pricing + ", upstreamClient=" + upstreamClient + "]";
    }
}
