package app.talkide.controlplane.system;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Caps request bodies at {@code talkide.api.max-request-size}, first of all filters (before any
 * authentication, which may itself read the body): a declared length over the cap is answered 413 without
 * reading a byte, and a chunked body is counted as it is read and fails with {@link RequestBodyTooLarge}
 * the moment it passes the cap, which the exception handler answers 413. The gateway has its own, larger
 * limit and bounds its memory itself.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
class RequestSizeLimitFilter extends OncePerRequestFilter {

    static final String GATEWAY_PREFIX = "/api/internal/gateway/";

    private final long max;

    RequestSizeLimitFilter(ApiProperties properties) {
        this.max = properties.maxRequestSize().toBytes();
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return request.getRequestURI().startsWith(GATEWAY_PREFIX);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getContentLengthLong() > max) {
            // Unread: the container closes the connection rather than read the rest.
            response.setHeader("Connection", "close");
            ProblemResponses.write(
                    response, HttpStatus.CONTENT_TOO_LARGE, "request-too-large", "Request too large", detail());
            return;
        }
        chain.doFilter(new Capped(request, max), response);
    }

    private String detail() {
        return "The request body is larger than this API's limit of " + max + " bytes.";
    }

    /** The request with an input stream that fails once more than {@code max} bytes came through it. */
    private static final class Capped extends HttpServletRequestWrapper {

        private final long max;
        private ServletInputStream counted;

        Capped(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (counted == null) {
                counted = new CountingInputStream(super.getInputStream(), max);
            }
            return counted;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String encoding = getCharacterEncoding();
            Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
    }

    private static final class CountingInputStream extends ServletInputStream {

        private final ServletInputStream in;
        private final long max;
        private long count;

        CountingInputStream(ServletInputStream in, long max) {
            this.in = in;
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                counted(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                counted(n);
            }
            return n;
        }

        private void counted(int n) throws RequestBodyTooLarge {
            count += n;
            if (count > max) {
                throw new RequestBodyTooLarge(max);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
