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
import org.springframework.http.converter.HttpMessageNotReadableException;
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

    /** A body that passed the API's size limit while being read is too large, not malformed. */
    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(
            HttpMessageNotReadableException exception, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
            if (cause instanceof RequestBodyTooLarge) {
                return tooLarge(cause);
            }
        }
        return super.handleHttpMessageNotReadable(exception, headers, status, request);
    }

    /** Whatever else read the body (a form, a plain stream) and met the cap. */
    @ExceptionHandler(RequestBodyTooLarge.class)
    ResponseEntity<Object> tooLarge(Throwable exception) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.CONTENT_TOO_LARGE,
                "The request body is larger than this API's limit: " + exception.getMessage() + ".");
        problem.setType(URI.create(ProblemException.TYPE_BASE + "request-too-large"));
        problem.setTitle("Request too large");
        return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE)
                .header(HttpHeaders.CONNECTION, "close")
                .body(problem);
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
