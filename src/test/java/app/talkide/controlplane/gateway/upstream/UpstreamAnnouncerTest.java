package app.talkide.controlplane.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * The start-up line that says where Anthropic calls go when a key is configured: the real API by its
 * address, never the key. (The simulator's line is {@code SimulatorSelectionTest}'s.)
 */
@ExtendWith(OutputCaptureExtension.class)
class UpstreamAnnouncerTest {

    static final String KEY = "sk-ant-api03-announcer-test-" + "k".repeat(24);

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(Properties.class, ConfiguredAnthropicUpstream.class, UpstreamAnnouncer.class);

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(GatewayProperties.class)
    static class Properties {}

    @Test
    void localModeWithAKeyNamesTheRealApiAtStartUpWithoutTheKey(CapturedOutput output) {
        runner.withPropertyValues("talkide.mode=local", "talkide.gateway.api-key=" + KEY)
                .run(context -> {
                    assertThat(context.getBean(AnthropicUpstream.class).baseUrl())
                            .hasToString("https://api.anthropic.com");
                    context.publishEvent(
                            new ApplicationReadyEvent(new SpringApplication(), new String[0], context, Duration.ZERO));

                    assertThat(output.getOut())
                            .contains("Anthropic gateway upstream: Anthropic API at https://api.anthropic.com"
                                    + " (API key configured)")
                            .doesNotContainIgnoringCase("simulator")
                            .doesNotContain(KEY)
                            .doesNotContain(KEY.substring(0, 24));
                });
    }

    @Test
    void aKeyAnHttpHeaderCannotCarryStopsTheStartWithoutShowingIt(CapturedOutput output) {
        // A zero-width space pasted into the middle: the JDK client would refuse the header on every call
        // with the whole key in its exception message.
        String pasted = KEY.substring(0, 20) + "\u200B" + KEY.substring(20);
        runner.withPropertyValues("talkide.mode=production", "talkide.gateway.api-key=" + pasted)
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    assertThat(failure).rootCause().hasMessageContaining("talkide.gateway.api-key");
                    for (Throwable t = failure; t != null; t = t.getCause()) {
                        assertThat(String.valueOf(t.getMessage())).doesNotContain(KEY.substring(0, 20));
                    }
                    assertThat(output.getAll()).doesNotContain(KEY.substring(0, 20));
                });
    }
}
