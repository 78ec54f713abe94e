package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.DesiredStateChanged;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.event.EventListener;

/** Every desired-state change the application announced; tests filter by their own tenant-environment. */
@TestConfiguration
class DesiredStateEvents {

    final List<DesiredStateChanged> seen = new CopyOnWriteArrayList<>();

    @EventListener
    void on(DesiredStateChanged event) {
        seen.add(event);
    }
}
