package app.talkide.controlplane.token.security;

import app.talkide.controlplane.token.WorkerPrincipal;
import java.util.List;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/** An authenticated worker call; the principal is a {@link WorkerPrincipal}, the credentials are dropped. */
final class WorkerTokenAuthentication extends AbstractAuthenticationToken {

    private final WorkerPrincipal principal;

    WorkerTokenAuthentication(WorkerPrincipal principal) {
        super(List.of(new SimpleGrantedAuthority("ROLE_WORKER")));
        this.principal = principal;
        setAuthenticated(true);
    }

    @Override
    public Object getCredentials() {
        return "";
    }

    @Override
    public WorkerPrincipal getPrincipal() {
        return principal;
    }

    @Override
    public String getName() {
        return "worker:" + principal.tenantEnvironment().path();
    }
}
