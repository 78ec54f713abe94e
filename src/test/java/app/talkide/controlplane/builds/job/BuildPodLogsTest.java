package app.talkide.controlplane.builds.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildKind;
import app.talkide.controlplane.builds.BuildLog;
import app.talkide.controlplane.builds.BuildSpec;
import app.talkide.controlplane.builds.BuildState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The leader reads only what is new of a running build's log, never a line twice, and stops reading once
 * the store's cap is reached (a build printing {@code yes} must not cost the replica millions of strings a
 * second).
 */
class BuildPodLogsTest {

    static final String BASE = "https://k8s.example:6443/api/v1/namespaces/acme-dev/pods/job-1-abc/log"
            + "?container=build&timestamps=true&limitBytes=8388608";

    KubernetesClient client = mock(KubernetesClient.class);
    BuildLog log = mock(BuildLog.class);
    Build build = new Build(
            UUID.randomUUID(),
            1,
            new TenantEnvironmentId("acme", "dev"),
            UUID.randomUUID(),
            "alice",
            new BuildSpec(BuildKind.GRADLE, List.of("test"), List.of(), null, null, null),
            BuildState.RUNNING,
            "job-1",
            null,
            Instant.EPOCH,
            Instant.EPOCH,
            null);
    Pod pod = new PodBuilder()
            .withNewMetadata()
            .withName("job-1-abc")
            .endMetadata()
            .withNewStatus()
            .withPhase("Running")
            .endStatus()
            .build();
    BuildPodLogs logs =
            new BuildPodLogs(client, log, 100, new CredentialRedaction(client, "talkide-registry-credentials"));

    @BeforeEach
    void setUp() throws Exception {
        when(client.getMasterUrl())
                .thenReturn(URI.create("https://k8s.example:6443/").toURL());
    }

    @Test
    void afterTheFirstReadOnlyLinesSinceTheLastOneAreReadAndNoneIsStoredTwice() {
        when(client.raw(BASE)).thenReturn("2026-01-01T10:00:01.1Z a\n2026-01-01T10:00:01.1Z b\n");
        logs.copy(build, pod, false);
        verify(log).append(build.id(), List.of("a", "b"));

        // Same second again (sinceTime has whole seconds), two lines with the same timestamp, then new ones.
        when(log.lineCount(build.id())).thenReturn(2);
        when(client.raw(BASE + "&sinceTime=2026-01-01T10:00:01Z"))
                .thenReturn("2026-01-01T10:00:01.1Z a\n2026-01-01T10:00:01.1Z b\n2026-01-01T10:00:01.1Z c\n"
                        + "2026-01-01T10:00:03.0Z d\n2026-01-01T10:00:03.0Z half");
        logs.copy(build, pod, false);
        verify(log).append(build.id(), List.of("c", "d"));
    }

    @Test
    void aNewLeaderReadsTheLogWholeOnceAndSkipsWhatIsStored() {
        when(log.lineCount(build.id())).thenReturn(2);
        when(client.raw(BASE))
                .thenReturn("2026-01-01T10:00:01.1Z a\n2026-01-01T10:00:01.2Z b\n2026-01-01T10:00:02.0Z c\n");
        logs.copy(build, pod, false);
        verify(log).append(build.id(), List.of("c"));
    }

    @Test
    void onceTheCapIsReachedTheLogIsNotReadAnyMore() {
        when(log.lineCount(build.id())).thenReturn(101); // 100 lines and the note that the log was cut
        logs.copy(build, pod, false);
        logs.copy(build, pod, true);
        verify(client, never()).raw(anyString());
        verify(log, never()).append(any(), anyList());
        assertThat(BuildPodLogs.wholeSecond("2026-01-01T10:00:01.123456789Z")).isEqualTo("2026-01-01T10:00:01Z");
    }
}
