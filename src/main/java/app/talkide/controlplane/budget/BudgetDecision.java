package app.talkide.controlplane.budget;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The answer to a pre-call check: a reservation to settle later, or a refusal the caller can explain. */
public sealed interface BudgetDecision {

    record Reserved(Reservation reservation) implements BudgetDecision {}

    /**
     * @param message says in words what limit was hit and when it resets; safe to show to the user
     * @param retryAfter when trying again can succeed, if that is known
     * @param retryable false when the limit is spent for the period, so clients should not retry
     */
    record Denied(
            DenialReason reason, String message, @Nullable Duration retryAfter, boolean retryable)
            implements BudgetDecision {}
}
