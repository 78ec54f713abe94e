package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.GatewayProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.springframework.stereotype.Component;

/**
 * Reads request bodies into memory under two limits: one body is at most {@code max-request-size} (413
 * before a byte is read when the declared length says so), and all bodies held at once by gateway calls
 * are at most {@code max-bytes-in-flight} (529 {@code overloaded_error}, which the SDKs retry), so
 * parallel large uploads cannot take the heap. Memory is claimed before it is allocated: the declared
 * length up front, or for a chunked body each buffer's size before the buffer grows.
 *
 * <p>The body is held rather than streamed upstream because the reservation needs the model and
 * {@code max_tokens}, which may come anywhere in the JSON, before anything is sent.
 */
@Component
class RequestBody {

    /** Permits are KiB, so the in-flight limit can pass 2 GiB. */
    private static final int UNIT = 1024;

    private static final int CHUNKED_START = 64 * 1024;

    private final Semaphore inFlight;
    private final long maxBytes;

    RequestBody(GatewayProperties properties, MeterRegistry meters) {
        this.maxBytes = properties.maxRequestSize().toBytes();
        long limit = properties.maxBytesInFlight().toBytes();
        if (limit < 2 * maxBytes) {
            // a chunked body of the largest size needs twice its size while its buffer grows
            throw new IllegalStateException(
                    "talkide.gateway.max-bytes-in-flight must be at least twice" + " talkide.gateway.max-request-size");
        }
        int permits = (int) Math.min(Integer.MAX_VALUE, limit / UNIT);
        this.inFlight = new Semaphore(permits);
        Gauge.builder(
                        "talkide.gateway.request.bytes.held",
                        inFlight,
                        free -> (double) (permits - free.availablePermits()) * UNIT)
                .description("Request-body bytes gateway calls hold now (claimed before reading)")
                .baseUnit("bytes")
                .register(meters);
    }

    /** A body read, and the share of the in-flight limit it holds until closed. */
    static final class Held implements AutoCloseable {

        private final RequestBody owner;
        private final byte[] bytes;
        private int permits;

        private Held(RequestBody owner, byte[] bytes, int permits) {
            this.owner = owner;
            this.bytes = bytes;
            this.permits = permits;
        }

        byte[] bytes() {
            return bytes;
        }

        /** Gives the memory back to the limit; once the upstream has the body, nothing needs it any more. */
        @Override
        public void close() {
            int held;
            synchronized (this) {
                held = permits;
                permits = 0;
            }
            owner.inFlight.release(held);
        }
    }

    Held read(HttpServletRequest request) throws GatewayError, IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            throw tooLarge();
        }
        int capacity = (int) (declared >= 0 ? declared : Math.min(CHUNKED_START, maxBytes));
        int permits = claim(capacity);
        try {
            InputStream in = request.getInputStream();
            byte[] body = new byte[capacity];
            int length = 0;
            while (true) {
                if (length == body.length) {
                    if (declared >= 0 || length >= maxBytes) {
                        // full: a declared length is exact (Jetty ends the stream there), and at the limit
                        // one more byte is too many either way
                        if (in.read() < 0) {
                            break;
                        }
                        throw tooLarge();
                    }
                    int grown = (int) Math.min(body.length * 2L, maxBytes);
                    // old and new buffer both live while copying: claim the new one before allocating it
                    int more = claim(grown);
                    body = Arrays.copyOf(body, grown);
                    release(permits);
                    permits = more;
                }
                int read = in.read(body, length, body.length - length);
                if (read < 0) {
                    break;
                }
                length += read;
            }
            if (length > maxBytes) {
                throw tooLarge();
            }
            if (length < body.length) {
                int exact = claim(length);
                body = Arrays.copyOf(body, length);
                release(permits);
                permits = exact;
            }
            return new Held(this, body, permits);
        } catch (GatewayError | IOException | RuntimeException e) {
            release(permits);
            throw e;
        }
    }

    private int claim(long bytes) throws GatewayError {
        int permits = (int) Math.ceilDiv(Math.max(bytes, 0), UNIT);
        if (!inFlight.tryAcquire(permits)) {
            throw new GatewayError(
                    529,
                    "overloaded_error",
                    "The gateway is holding as many request bodies as it may; try again shortly.",
                    Map.of("retry-after", "1"));
        }
        return permits;
    }

    private void release(int permits) {
        inFlight.release(permits);
    }

    private GatewayError tooLarge() {
        return new GatewayError(
                413, "request_too_large", "Request body is larger than the gateway's limit of " + maxBytes + " bytes.");
    }
}
