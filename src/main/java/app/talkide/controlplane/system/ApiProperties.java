package app.talkide.controlplane.system;

import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Limits of the HTTP API.
 *
 * @param maxRequestSize the largest request body any endpoint but the gateway accepts (the gateway has
 *     {@code talkide.gateway.max-request-size}); larger is answered 413 before it is read, or as soon as a
 *     chunked body passes it
 */
@Validated
@ConfigurationProperties("talkide.api")
public record ApiProperties(@NotNull @DefaultValue("1MB") DataSize maxRequestSize) {}
