package app.talkide.controlplane.system;

import java.net.URI;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The one place API errors become RFC 9457 problem details. Spring's own exceptions (bad JSON, wrong
 * method, unknown path, failed validation) are handled by the superclass; {@link ProblemException}s are
 * {@code ErrorResponse}s and pass through as they are. Anything else is a bug: the client gets a 500
 * with an error id, the log gets the stack trace under the same id.
 */
@RestControllerAdvice
class ProblemDetailsExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemDetailsExceptionHandler.class);

    /** Says which fields are wrong and why, instead of Spring's bare "Invalid request content." */
    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(
            MethodArgumentNotValidException exception, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        ProblemDetail problem = exception.getBody();
        List<String> errors = exception.getBindingResult().getFieldErrors().stream()
                .map(error -> error.getField() + ": " + error.getDefaultMessage())
                .sorted()
                .toList();
        problem.setDetail("Invalid request: " + String.join("; ", errors));
        problem.setProperty("errors", errors);
        return handleExceptionInternal(exception, problem, headers, status, request);
    }

    /**
     * Constraints on request parameters and path variables ({@code @Min}, {@code @Max} ...): names each
     * parameter and why, e.g. {@code limit: must be less than or equal to 1000}.
     */
    @Override
    protected ResponseEntity<Object> handleHandlerMethodValidationException(
            HandlerMethodValidationException exception,
            HttpHeaders headers,
            HttpStatusCode status,
            WebRequest request) {
        ProblemDetail problem = exception.getBody();
        List<String> errors = exception.getParameterValidationResults().stream()
                .flatMap(result -> result.getResolvableErrors().stream()
                        .map(error ->
                                result.getMethodParameter().getParameterName() + ": " + error.getDefaultMessage()))
                .sorted()
                .toList();
        problem.setDetail("Invalid request: " + String.join("; ", errors));
        problem.setProperty("errors", errors);
        return handleExceptionInternal(exception, problem, headers, status, request);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> unexpected(Exception exception, WebRequest request) {
        String errorId = UUID.randomUUID().toString();
        log.error("Unexpected error {} on {}", errorId, request.getDescription(false), exception);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.INTERNAL_SERVER_ERROR, "Something went wrong on our side; quote error id " + errorId + ".");
        problem.setType(URI.create(ProblemException.TYPE_BASE + "internal-error"));
        problem.setTitle("Internal error");
        problem.setProperty("errorId", errorId);
        return ResponseEntity.internalServerError().body(problem);
    }
}
