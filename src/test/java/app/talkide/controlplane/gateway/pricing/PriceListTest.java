package app.talkide.controlplane.gateway.pricing;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.gateway.GatewayProperties;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.util.unit.DataSize;

/** Prices by family, in whole micro-dollars. */
class PriceListTest {

    @Test
    void opusFourAndFourOneAreNotUnderBilledAtTheOpusFourFivePrice() {
        PriceList prices = prices(Map.of());
        for (String model : List.of(
                "claude-opus-4-20250514",
                "claude-opus-4-0",
                "claude-opus-4-1",
                "claude-opus-4-1-20250805",
                "claude-3-opus-20240229")) {
            assertThat(prices.forModel(model).input()).as(model).isEqualTo(15_000_000);
            assertThat(prices.forModel(model).output()).as(model).isEqualTo(75_000_000);
        }
        assertThat(prices.forModel("claude-opus-4-5-20251101").output()).isEqualTo(25_000_000);
        assertThat(prices.forModel("claude-opus-4-6").output()).isEqualTo(25_000_000);
    }

    @Test
    void aNewModelIdOfAKnownFamilyIsPricedAsItsFamily() {
        PriceList prices = prices(Map.of());
        assertThat(prices.forModel("claude-opus-4-5-20251101").family()).isEqualTo("opus");
        assertThat(prices.forModel("claude-opus-7-20290101").family()).isEqualTo("opus");
        assertThat(prices.forModel("claude-sonnet-4-5").family()).isEqualTo("sonnet");
        assertThat(prices.forModel("claude-haiku-4-5-20251001").family()).isEqualTo("haiku");
    }

    @Test
    void anUnknownFamilyIsPricedAsTheMostExpensive() {
        ModelPrice unknown = prices(Map.of()).forModel("gpt-5");
        assertThat(unknown.family()).isEqualTo(PriceList.UNKNOWN);
        // the Opus 4 / 4.1 list price, the highest built in
        assertThat(unknown.input()).isEqualTo(15_000_000);
        assertThat(unknown.output()).isEqualTo(75_000_000);
    }

    @Test
    void theMostSpecificPatternWinsAndConfiguredFamiliesReplaceBuiltInOnes() {
        PriceList prices = prices(Map.of(
                "opus-4-1", new GatewayProperties.Family(List.of("claude-opus-4-1*"), 15_000_000, 75_000_000),
                "haiku", new GatewayProperties.Family(List.of("claude-haiku-*"), 800_000, 4_000_000)));
        assertThat(prices.forModel("claude-opus-4-1-20250805").output()).isEqualTo(75_000_000);
        assertThat(prices.forModel("claude-opus-4-5").output()).isEqualTo(25_000_000);
        assertThat(prices.forModel("claude-haiku-4-5").input()).isEqualTo(800_000);
        assertThat(prices.forModel("claude-nova").output()).isEqualTo(75_000_000);
    }

    @Test
    void cacheWritesAndReadsArePricedFromTheInputPrice() {
        ModelPrice sonnet = prices(Map.of()).forModel("claude-sonnet-4");
        assertThat(sonnet.cacheWrite5m()).isEqualTo(3_750_000);
        assertThat(sonnet.cacheWrite1h()).isEqualTo(6_000_000);
        assertThat(sonnet.cacheRead()).isEqualTo(300_000);
        // 1M of each kind: 3 + 3.75 + 6 + 0.3 + 15 dollars.
        assertThat(sonnet.cost(new TokenCounts(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000)))
                .isEqualTo(28_050_000);
    }

    @Test
    void aFractionOfAMicroDollarRoundsUp() {
        ModelPrice haiku = prices(Map.of()).forModel("claude-haiku-4-5");
        assertThat(haiku.cost(1, 0)).isEqualTo(1);
        assertThat(haiku.cost(0, 0)).isZero();
    }

    @Test
    void aLongerPatternWinsWhateverOrderTheFamiliesAreConfiguredIn() {
        Map<String, GatewayProperties.Family> families = new java.util.LinkedHashMap<>();
        families.put("broad", new GatewayProperties.Family(List.of("claude-*"), 1, 1));
        families.put("narrow", new GatewayProperties.Family(List.of("claude-x-*"), 2, 2));
        families.put("mine", new GatewayProperties.Family(List.of("claude-sonnet-*"), 3, 3));
        PriceList prices = prices(families);

        assertThat(prices.forModel("claude-x-1").family()).isEqualTo("narrow");
        assertThat(prices.forModel("claude-y-1").family()).isEqualTo("broad");
        // as specific as the built-in sonnet pattern: the operator's wins the tie
        assertThat(prices.forModel("claude-sonnet-4").family()).isEqualTo("mine");
    }

    @Test
    void aPatternMatchesTheWholeIdFromItsFirstCharacter() {
        PriceList prices = prices(Map.of());
        assertThat(prices.forModel("my-claude-sonnet-4").family()).isEqualTo(PriceList.UNKNOWN);
        assertThat(prices.forModel("claude-sonnet").family()).isEqualTo(PriceList.UNKNOWN);
        assertThat(prices.forModel("claude-sonnet-").family()).isEqualTo("sonnet");
    }

    @Test
    void aCachePriceRoundsUpToTheNextMicroDollarPerMillion() {
        PriceList prices = prices(Map.of("odd", new GatewayProperties.Family(List.of("odd-*"), 1, 1)));
        ModelPrice odd = prices.forModel("odd-1");
        assertThat(odd.cacheWrite5m()).isEqualTo(2);
        assertThat(odd.cacheWrite1h()).isEqualTo(2);
        assertThat(odd.cacheRead()).isEqualTo(1);
    }

    @Test
    void familiesBindFromConfigurationAndAreValidated() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ValidationAutoConfiguration.class))
                .withUserConfiguration(Bound.class);
        runner.withPropertyValues(
                        "talkide.gateway.pricing.families.opus-4-1.models[0]=claude-opus-4-1*",
                        "talkide.gateway.pricing.families.opus-4-1.input-per-million=15000000",
                        "talkide.gateway.pricing.families.opus-4-1.output-per-million=75000000")
                .run(context -> assertThat(context.getBean(PriceList.class)
                                .forModel("claude-opus-4-1-20250805")
                                .family())
                        .isEqualTo("opus-4-1"));
        runner.withPropertyValues("talkide.gateway.pricing.families.broken.input-per-million=-1")
                .run(context -> assertThat(context).hasFailed());
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(GatewayProperties.class)
    @Import(PriceList.class)
    static class Bound {}

    static PriceList prices(Map<String, GatewayProperties.Family> families) {
        return new PriceList(new GatewayProperties(
                "",
                URI.create("https://api.anthropic.com"),
                "2023-06-01",
                Duration.ofSeconds(10),
                Duration.ofMinutes(10),
                Duration.ofMinutes(3),
                DataSize.ofMegabytes(32),
                DataSize.ofMegabytes(256),
                DataSize.ofMegabytes(64),
                Duration.ofSeconds(60),
                4096,
                new GatewayProperties.Pricing(families, 125, 200, 10),
                GatewayProperties.UpstreamClientKind.JETTY));
    }
}
