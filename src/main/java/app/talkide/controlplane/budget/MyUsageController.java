package app.talkide.controlplane.budget;

import java.security.Principal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/me/usage}: a signed-in user's spend, reservations and limit in the current period. */
@RestController
class MyUsageController {

    private final UserBudgetService budgets;

    MyUsageController(UserBudgetService budgets) {
        this.budgets = budgets;
    }

    @GetMapping("/api/me/usage")
    BudgetStatus myUsage(Principal user) {
        // The people chain's principal name is the user id conversations and budgets are kept under.
        return budgets.status(user.getName());
    }
}
