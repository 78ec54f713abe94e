package app.talkide.controlplane.worker.stream;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.ApplicationOnTestClockTest;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.MutableClock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

/** The lease rules that make exactly one replica consume a worker stream, on the real database. */
@DatabaseTest
// A context of its own (own properties): close it afterwards so its connection pool does not linger.
@ApplicationOnTestClockTest
class StreamLeaseRepositoryTest {

    static final Duration TTL = Duration.ofSeconds(15);

    @Autowired
    StreamLeaseRepository leases;

    @Autowired
    MutableClock clock;

    @Autowired
    ApplicationContext context;

    UUID conversation;

    @BeforeEach
    void setUp() {
        conversation = Fixtures.conversation(context, Fixtures.tenantEnvironment(context), "dev")
                .id();
        leases.demand(conversation, clock.instant());
    }

    @Test
    void onlyOneReplicaHoldsALiveLease() {
        assertThat(leases.claim(conversation, "a", clock.instant(), TTL)).isPresent();
        assertThat(leases.claim(conversation, "b", clock.instant(), TTL)).isEmpty();
        assertThat(leases.claim(conversation, "a", clock.instant(), TTL)).isPresent();
    }

    @Test
    void anExpiredLeaseIsTakenOverWithTheCursorAndTheOldHolderIsFencedOut() {
        leases.claim(conversation, "a", clock.instant(), TTL);
        leases.recordCursor(conversation, "a", "e1-41", clock.instant());

        clock.advance(TTL.plusSeconds(1));

        assertThat(leases.orphaned(clock.instant(), 10)).contains(conversation);
        StreamLease taken =
                leases.claim(conversation, "b", clock.instant(), TTL).orElseThrow();
        assertThat(taken.lastEventId()).isEqualTo("e1-41");
        assertThat(leases.renew(conversation, "a", "e1-42", clock.instant(), TTL))
                .isEmpty();
        assertThat(leases.recordCursor(conversation, "a", "e1-43", clock.instant()))
                .isFalse();
        assertThat(leases.release(conversation, "a", null, taken.demand(), clock.instant()))
                .isFalse();
        assertThat(leases.claim(conversation, "b", clock.instant(), TTL)
                        .orElseThrow()
                        .lastEventId())
                .isEqualTo("e1-41");
    }

    @Test
    void renewalKeepsTheLeaseAlive() {
        leases.claim(conversation, "a", clock.instant(), TTL);
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofSeconds(10));
            assertThat(leases.renew(conversation, "a", null, clock.instant(), TTL))
                    .isPresent();
        }
        assertThat(leases.orphaned(clock.instant(), 10)).doesNotContain(conversation);
        assertThat(leases.claim(conversation, "b", clock.instant(), TTL)).isEmpty();
    }

    @Test
    void anIdleStreamIsReleasedOnlyIfNobodyAskedForItSince() {
        StreamLease lease =
                leases.claim(conversation, "a", clock.instant(), TTL).orElseThrow();
        leases.demand(conversation, clock.instant()); // another replica needs the stream now

        assertThat(leases.release(conversation, "a", "e1-9", lease.demand(), clock.instant()))
                .isFalse();

        long seen = leases.renew(conversation, "a", null, clock.instant(), TTL).orElseThrow();
        assertThat(leases.release(conversation, "a", "e1-9", seen, clock.instant()))
                .isTrue();
        assertThat(leases.orphaned(clock.instant(), 10)).doesNotContain(conversation);
        assertThat(leases.claim(conversation, "b", clock.instant(), TTL)
                        .orElseThrow()
                        .lastEventId())
                .isEqualTo("e1-9");
    }

    @Test
    void aHandedOverStreamIsAnOrphanAtOnce() {
        leases.claim(conversation, "a", clock.instant(), TTL);

        leases.handOver(conversation, "a", "e1-3", clock.instant());

        assertThat(leases.orphaned(clock.instant(), 10)).contains(conversation);
        assertThat(leases.claim(conversation, "b", clock.instant(), TTL)
                        .orElseThrow()
                        .lastEventId())
                .isEqualTo("e1-3");
    }
}
