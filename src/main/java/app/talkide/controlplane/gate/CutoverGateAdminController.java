package app.talkide.controlplane.gate;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.security.Principal;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The gate's admin API under {@code /api/admin/tenant-environments/{tenant}/{env}/cutover}: {@code GET}
 * whether it is offered and its verifications (newest first), {@code POST …/verifications} runs one now
 * (202, then poll), {@code PUT …/override} records an operator's override with a reason.
 */
@RestController
@RequestMapping("/api/admin/tenant-environments/{tenant}/{env}/cutover")
class CutoverGateAdminController {

    record GateView(boolean offered, List<Verification> verifications) {}

    record Override(@NotBlank @Size(max = 1000) String reason) {}

    private final CutoverGate gate;

    CutoverGateAdminController(CutoverGate gate) {
        this.gate = gate;
    }

    @GetMapping
    GateView get(@PathVariable String tenant, @PathVariable String env) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, env);
        List<Verification> history = gate.history(id, 20);
        return new GateView(gate.offered(id), history);
    }

    @PostMapping("/verifications")
    ResponseEntity<Verification> verify(@PathVariable String tenant, @PathVariable String env, Principal operator) {
        return ResponseEntity.status(HttpStatus.ACCEPTED)
                .body(gate.start(TenantEnvironmentId.of(tenant, env), "on_demand", operator.getName()));
    }

    @PutMapping("/override")
    Verification override(
            @PathVariable String tenant,
            @PathVariable String env,
            @Valid @RequestBody Override request,
            Principal operator) {
        return gate.override(TenantEnvironmentId.of(tenant, env), operator.getName(), request.reason());
    }
}
