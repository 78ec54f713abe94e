package app.talkide.controlplane.local.simulator;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The built-in Anthropic simulator (local mode without an API key only).
 *
 * @param port loopback port to listen on; 0 picks a free one at start-up
 * @param firstTokenDelay pause between {@code message_start} and the first content delta, as a model
 *     takes to read the prompt
 * @param chunkDelay pause between two content deltas
 * @param wordsPerChunk words carried by one {@code text_delta}
 * @param slowChunkDelay pause between two content deltas when the prompt asks for a slow stream
 *     ({@code [[sim:slow]]} without a value)
 * @param maxRequestSize largest request body accepted; larger ones get 413 {@code request_too_large}
 * @param minCacheableTokens shortest prompt prefix that a {@code cache_control} breakpoint caches, as
 *     the real API ignores breakpoints on short prefixes
 */
@Validated
@ConfigurationProperties("talkide.simulator")
public record SimulatorProperties(
        @PositiveOrZero @Max(65535) @DefaultValue("0") int port,
        @NotNull @DefaultValue("300ms") Duration firstTokenDelay,
        @NotNull @DefaultValue("30ms") Duration chunkDelay,
        @Positive @DefaultValue("3") int wordsPerChunk,
        @NotNull @DefaultValue("500ms") Duration slowChunkDelay,
        @NotNull @DefaultValue("32MB") DataSize maxRequestSize,
        @PositiveOrZero @DefaultValue("1024") int minCacheableTokens) {}
