package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.tenant.TenantEnvironmentBeingDeleted;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.util.List;
import java.util.UUID;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Admin API for a tenant-environment's identity tokens (role ADMIN). Issuing returns the token value
 * once; it is never retrievable again. In a cluster, provisioning does this itself and puts the token
 * into the worker's Secret; this API is for bootstrapping, incident response and workers run by hand.
 */
@RestController
@RequestMapping("/api/admin/tenant-environments/{tenant}/{env}/identity-tokens")
class IdentityTokenAdminController {

    private final IdentityTokens identityTokens;
    private final TenantEnvironments tenantEnvironments;
    private final ObjectProvider<IdentityTokenRotator> rotators;

    IdentityTokenAdminController(
            IdentityTokens identityTokens,
            TenantEnvironments tenantEnvironments,
            ObjectProvider<IdentityTokenRotator> rotators) {
        this.identityTokens = identityTokens;
        this.tenantEnvironments = tenantEnvironments;
        this.rotators = rotators;
    }

    @PostMapping
    ResponseEntity<IssuedIdentityToken> issue(@PathVariable String tenant, @PathVariable String env) {
        TenantEnvironmentId id = notBeingDeleted(tenant, env);
        return ResponseEntity.status(HttpStatus.CREATED).body(identityTokens.issue(id));
    }

    @PostMapping("/rotate")
    IdentityTokens.Rotation rotate(@PathVariable String tenant, @PathVariable String env) {
        TenantEnvironmentId id = notBeingDeleted(tenant, env);
        IdentityTokenRotator rotator = rotators.getIfUnique();
        return rotator != null ? rotator.rotate(id) : identityTokens.rotate(id);
    }

    @GetMapping
    List<IdentityTokenRecord> list(@PathVariable String tenant, @PathVariable String env) {
        return identityTokens.list(existing(tenant, env));
    }

    @DeleteMapping("/{id}")
    ResponseEntity<Void> revoke(@PathVariable String tenant, @PathVariable String env, @PathVariable UUID id) {
        TenantEnvironmentId scope = existing(tenant, env);
        boolean ours =
                identityTokens.list(scope).stream().anyMatch(token -> token.id().equals(id));
        if (!ours) {
            throw new IdentityTokenNotFound(id);
        }
        identityTokens.revoke(id);
        return ResponseEntity.noContent().build();
    }

    /** A token issued now would outlive the deletion that revoked all the others. */
    private TenantEnvironmentId notBeingDeleted(String tenant, String env) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, env);
        TenantEnvironmentStatus status = tenantEnvironments.get(id).status();
        if (status == TenantEnvironmentStatus.DELETING || status == TenantEnvironmentStatus.DELETED) {
            throw new TenantEnvironmentBeingDeleted(id, status, "it gets no new identity tokens.");
        }
        return id;
    }

    private TenantEnvironmentId existing(String tenant, String env) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, env);
        tenantEnvironments.get(id);
        return id;
    }
}
