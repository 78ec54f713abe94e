package app.talkide.controlplane;

import org.junit.jupiter.api.Test;
import org.springframework.modulith.core.ApplicationModules;

/** Features reach each other only through their published API: no cycles, no reaching into internals. */
class ModularityTest {

    @Test
    void featuresRespectTheirBoundaries() {
        ApplicationModules.of(ControlPlaneApplication.class).verify();
    }
}
