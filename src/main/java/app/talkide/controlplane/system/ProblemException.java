package app.talkide.controlplane.system;

import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Base for the one-exception-per-domain-condition types of every feature. Each becomes an RFC 9457
 * problem with a stable {@code type} URI; the detail is written for the API user and never carries
 * secrets.
 */
public abstract class ProblemException extends ErrorResponseException {

    public static final String TYPE_BASE = "https://talkide.app/problems/";

    protected ProblemException(HttpStatus status, String slug, String title, String detail) {
        super(status, problem(status, slug, title, detail), null);
    }

    private static ProblemDetail problem(HttpStatus status, String slug, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(TYPE_BASE + slug));
        problem.setTitle(title);
        return problem;
    }

    @Override
    public String getMessage() {
        return getBody().getTitle() + ": " + getBody().getDetail();
    }
}
