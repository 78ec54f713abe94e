package app.talkide.controlplane.provisioning.desired;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.provisioning.ProvisioningFixtures;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Quota;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Resources;
import org.junit.jupiter.api.Test;

/** The quota must hold the worker twice: the old pod and the surge pod of a rolling update. */
class SurgeQuotaTest {

    static final ProvisioningProperties PROPERTIES = ProvisioningFixtures.properties();
    static final Resources WORKER = new Resources("250m", "512Mi", "2", "2Gi");

    @Test
    void aQuotaThatHoldsTwoWorkersIsAccepted() {
        assertThatCode(() -> DesiredStateValidator.surgeFits(resolve(new Quota("4", "4Gi", "50Gi", 2, 1))))
                .doesNotThrowAnyException();
        assertThatCode(() -> DesiredStateValidator.surgeFits(ProvisioningFixtures.defaults(PROPERTIES)))
                .doesNotThrowAnyException();
    }

    @Test
    void aQuotaThatCannotHoldTheSurgePodIsRefused() {
        assertThatThrownBy(() -> DesiredStateValidator.surgeFits(resolve(new Quota("3", "16Gi", "50Gi", 20, 1))))
                .isInstanceOf(InvalidDesiredState.class)
                .hasMessageContaining("two worker pods");
        assertThatThrownBy(() -> DesiredStateValidator.surgeFits(resolve(new Quota("8", "3Gi", "50Gi", 20, 1))))
                .isInstanceOf(InvalidDesiredState.class);
        assertThatThrownBy(() -> DesiredStateValidator.surgeFits(resolve(new Quota("8", "16Gi", "50Gi", 1, 1))))
                .isInstanceOf(InvalidDesiredState.class);
    }

    private static DesiredState resolve(Quota quota) {
        return new DesiredStateSpec(null, WORKER, null, null, quota, null, null).resolve(PROPERTIES);
    }
}
