package app.talkide.controlplane.provisioning.rotation;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Automatic identity-token rotation in {@code kubernetes} mode (the grace period is
 * {@code talkide.tokens.rotation-grace}).
 *
 * @param checkInterval how often the leader looks for tokens due for rotation and for rotations a
 *     restart interrupted
 * @param lifetimeShare the share of its lifetime after which a worker's token is rotated
 */
@Validated
@ConfigurationProperties("talkide.provisioning.rotation")
public record RotationProperties(
        @NotNull @DefaultValue("10m") Duration checkInterval,

        @DecimalMin("0.1") @DecimalMax("0.95") @DefaultValue("0.8")
        double lifetimeShare) {}
