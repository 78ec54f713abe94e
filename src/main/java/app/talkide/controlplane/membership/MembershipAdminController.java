package app.talkide.controlplane.membership;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Admin API for the members of a tenant-environment (role ADMIN, enforced by the security chain). */
@RestController
@RequestMapping("/api/admin/tenant-environments/{tenant}/{env}/members")
class MembershipAdminController {

    private final Memberships memberships;

    MembershipAdminController(Memberships memberships) {
        this.memberships = memberships;
    }

    /** A membership as the admin API shows it. */
    record Member(String tenant, String env, String userId, Instant grantedAt) {
        static Member of(Membership membership) {
            return new Member(
                    membership.tenantEnvironment().tenant(),
                    membership.tenantEnvironment().env(),
                    membership.userId(),
                    membership.grantedAt());
        }
    }

    @GetMapping
    List<Member> list(@PathVariable String tenant, @PathVariable String env) {
        return memberships.membersOf(TenantEnvironmentId.of(tenant, env)).stream()
                .map(Member::of)
                .toList();
    }

    @PutMapping("/{userId}")
    Member grant(@PathVariable String tenant, @PathVariable String env, @PathVariable String userId) {
        return Member.of(memberships.grant(TenantEnvironmentId.of(tenant, env), userId));
    }

    @DeleteMapping("/{userId}")
    ResponseEntity<Void> revoke(@PathVariable String tenant, @PathVariable String env, @PathVariable String userId) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, env);
        if (!memberships.revoke(id, userId)) {
            throw new MembershipNotFound(id);
        }
        return ResponseEntity.noContent().build();
    }
}
