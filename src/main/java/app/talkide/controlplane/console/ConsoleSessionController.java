package app.talkide.controlplane.console;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/console/session}: who is signed in and whether they may open the admin page, so the
 * console can show the admin link without probing an admin endpoint (whose 403 would be an error in
 * the browser's console for everyone else).
 */
@RestController
class ConsoleSessionController {

    record ConsoleSession(String userId, boolean admin) {}

    @GetMapping("/api/console/session")
    ConsoleSession session(Authentication user) {
        boolean admin = user.getAuthorities().stream()
                .map(GrantedAuthority::getAuthority)
                .anyMatch("ROLE_ADMIN"::equals);
        return new ConsoleSession(user.getName(), admin);
    }
}
