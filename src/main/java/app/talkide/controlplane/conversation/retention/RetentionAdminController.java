package app.talkide.controlplane.conversation.retention;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/admin/tenant-environments/{tenant}/{env}/conversation-retention} (role ADMIN): how many days a
 * conversation of the tenant-environment is kept after its last event; {@code null} keeps them for good.
 */
@RestController
@RequestMapping("/api/admin/tenant-environments/{tenant}/{env}/conversation-retention")
class RetentionAdminController {

    private final ConversationRetention retention;
    private final TenantEnvironments tenantEnvironments;

    RetentionAdminController(ConversationRetention retention, TenantEnvironments tenantEnvironments) {
        this.retention = retention;
        this.tenantEnvironments = tenantEnvironments;
    }

    /** @param keepDays days after its last event; null: keep (the default) */
    record Retention(@Nullable @Min(1) @Max(36_500) Integer keepDays) {}

    @GetMapping
    Retention get(@PathVariable String tenant, @PathVariable String env) {
        TenantEnvironmentId id = existing(tenant, env);
        return new Retention(retention.keepDays(id).orElse(null));
    }

    @PutMapping
    Retention put(
            @PathVariable String tenant,
            @PathVariable String env,
            @RequestBody @jakarta.validation.Valid Retention body) {
        TenantEnvironmentId id = existing(tenant, env);
        if (body.keepDays() == null) {
            retention.keepForever(id);
        } else {
            retention.keepFor(id, body.keepDays());
        }
        return body;
    }

    private TenantEnvironmentId existing(String tenant, String env) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, env);
        tenantEnvironments.get(id);
        return id;
    }
}
