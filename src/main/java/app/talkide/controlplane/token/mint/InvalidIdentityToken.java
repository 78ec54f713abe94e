package app.talkide.controlplane.token.mint;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/** No bearer identity token, or one that is unknown, expired or revoked; the answer does not say which. */
class InvalidIdentityToken extends ProblemException {

    InvalidIdentityToken() {
        super(
                HttpStatus.UNAUTHORIZED,
                "invalid-identity-token",
                "Invalid identity token",
                "Present a valid worker identity token as 'Authorization: Bearer tkwi_...'.");
        getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
    }
}
