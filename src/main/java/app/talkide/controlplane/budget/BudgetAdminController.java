package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.account.UserBudgetSettings;
import jakarta.validation.Valid;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Admin API for budgets (role ADMIN, enforced by the people security chain): read and set a user's
 * limit and fair-use settings, and usage reports.
 */
@RestController
class BudgetAdminController {

    private static final int MAX_USER_ID = 255;

    private final UserBudgetService budgets;
    private final UsageReports reports;

    BudgetAdminController(UserBudgetService budgets, UsageReports reports) {
        this.budgets = budgets;
        this.reports = reports;
    }

    @GetMapping("/api/admin/budgets/{userId}")
    BudgetStatus get(@PathVariable String userId) {
        return budgets.status(checked(userId));
    }

    /** Replaces the user's overrides; a null or absent field returns it to the configured default. */
    @PutMapping("/api/admin/budgets/{userId}")
    BudgetStatus set(@PathVariable String userId, @Valid @RequestBody UserBudgetSettings settings) {
        return budgets.configure(checked(userId), settings);
    }

    /** {@code groupBy}: user, tenant, model, family or outcome; the range defaults to the current period. */
    @GetMapping("/api/admin/usage")
    UsageReports.UsageReport usage(
            @RequestParam(defaultValue = "user") String groupBy,
            @RequestParam(required = false) @Nullable Instant from,
            @RequestParam(required = false) @Nullable Instant to,
            @RequestParam(required = false) @Nullable String userId) {
        return reports.report(groupBy, from, to, userId);
    }

    private static String checked(String userId) {
        if (userId.isBlank() || userId.length() > MAX_USER_ID) {
            throw new InvalidUsageQuery("a user id has 1 to " + MAX_USER_ID + " characters");
        }
        return userId;
    }
}
