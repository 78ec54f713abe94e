package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.support.ApplicationWithoutWebTest;
import app.talkide.controlplane.support.DatabaseTest;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The query the cut-over gate asks the budget feature instead of reading {@code usage_record} itself:
 * every recorded call of the conversation counts, whatever its outcome, and only that conversation's.
 */
@DatabaseTest
@ApplicationWithoutWebTest
class CallsOfConversationTest {

    @Autowired
    UsageReports usage;

    @Autowired
    UsageRecordRepository records;

    @Test
    void countsTheConversationsRecordedCallsOnly() {
        UUID conversation = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        assertThat(usage.callsOfConversation(conversation)).isZero();

        records.insert(call(conversation, CallOutcome.values()[0]), 0);
        records.insert(call(conversation, CallOutcome.values()[CallOutcome.values().length - 1]), 0);
        records.insert(call(other, CallOutcome.values()[0]), 0);

        assertThat(usage.callsOfConversation(conversation)).isEqualTo(2);
        assertThat(usage.callsOfConversation(other)).isEqualTo(1);
    }

    private static UsageRecord call(UUID conversation, CallOutcome outcome) {
        return new UsageRecord(
                "req-" + UUID.randomUUID(),
                "acme",
                "prod",
                conversation,
                "user-" + UUID.randomUUID(),
                "messages",
                "claude-sonnet-4-5",
                "sonnet",
                TokenCounts.NONE,
                0,
                outcome,
                null,
                Instant.now(),
                Duration.ofMillis(5),
                null);
    }
}
