package app.talkide.controlplane.provisioning.desired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The egress allow-list refuses what is not an IP block, and every link-local block. */
class EgressValidationTest {

    @ParameterizedTest
    @ValueSource(strings = {"169.254.169.254/32", "169.254.0.0/16", "169.254.0.0/24", "fe80::/10", "fe80::1/128"})
    void linkLocalBlocksAreRefused(String cidr) {
        assertThatThrownBy(() -> validate(cidr, List.of(443)))
                .isInstanceOf(InvalidDesiredState.class)
                .hasMessageContaining("link-local");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "10.0.0.0",
                "10.0.0.1/8",
                "10.0.0.0/33",
                "256.0.0.0/8",
                "example.com/32",
                "localhost/8",
                "10.0.0/8",
                "::/129",
                "1.2.3.4/32 "
            })
    void whatIsNotAnIpBlockIsRefused(String cidr) {
        assertThatThrownBy(() -> validate(cidr, null))
                .isInstanceOf(InvalidDesiredState.class)
                .hasMessageContaining("egress.cidr");
    }

    @Test
    void portsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> validate("10.0.0.0/8", List.of(0))).hasMessageContaining("egress.ports");
        assertThatThrownBy(() -> validate("10.0.0.0/8", List.of(65536))).hasMessageContaining("egress.ports");
    }

    @Test
    void blocksThatMerelyContainLinkLocalAreAcceptedAndGetItCutOut() {
        assertThatCode(() -> validate("0.0.0.0/0", List.of(443))).doesNotThrowAnyException();
        assertThatCode(() -> validate("2001:db8::/32", null)).doesNotThrowAnyException();
        assertThat(Cidr.parse("0.0.0.0/0").linkLocalInside()).containsExactly("169.254.0.0/16");
        assertThat(Cidr.parse("169.0.0.0/8").linkLocalInside()).containsExactly("169.254.0.0/16");
        assertThat(Cidr.parse("::/0").linkLocalInside()).containsExactly("fe80::/10");
        assertThat(Cidr.parse("10.0.0.0/8").linkLocalInside()).isEmpty();
    }

    private static void validate(String cidr, List<Integer> ports) {
        DesiredStateValidator.validate(
                new DesiredStateSpec(null, null, null, null, null, null, List.of(new EgressRule(cidr, ports))));
    }
}
