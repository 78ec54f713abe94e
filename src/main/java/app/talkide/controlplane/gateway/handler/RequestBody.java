package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.GatewayProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.springframework.stereotype.Component;

/**
 * Reads request bodies into memory under four limits: one body is at most {@code max-request-size} (413
 * before a byte is read when the declared length says so); all bodies held at once by gateway calls
 * are at most {@code max-bytes-in-flight} (529 {@code overloaded_error}, which the SDKs retry), so
 * parallel large uploads cannot take the heap; one user's bodies at most {@code
 * max-bytes-in-flight-per-user} (429 {@code fair_use}), so one user cannot take everyone's share; and a
 * body must arrive whole within {@code body-read-timeout} (408), so a byte every few minutes cannot hold
 * a share for good. Memory is claimed before it is allocated: the declared length up front, or for a
 * chunked body each buffer's size before the buffer grows.
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
    private final long maxPerUser;
    private final Duration readTimeout;
    private final Map<String, Long> heldByUser = new ConcurrentHashMap<>();

    RequestBody(GatewayProperties properties, MeterRegistry meters) {
        this.maxBytes = properties.maxRequestSize().toBytes();
        this.maxPerUser = properties.maxBytesInFlightPerUser().toBytes();
        this.readTimeout = properties.bodyReadTimeout();
        if (maxPerUser < 2 * maxBytes) {
            throw new IllegalStateException("talkide.gateway.max-bytes-in-flight-per-user must be at least twice"
                    + " talkide.gateway.max-request-size");
        }
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

    /** A body read, and the share of the in-flight limits it holds until closed. */
    static final class Held implements AutoCloseable {

        private final Claims claims;
        private final byte[] bytes;

        private Held(Claims claims, byte[] bytes) {
            this.claims = claims;
            this.bytes = bytes;
        }

        byte[] bytes() {
            return bytes;
        }

        /** Gives the memory back to the limits; once the upstream has the body, nothing needs it any more. */
        @Override
        public void close() {
            claims.releaseAll();
        }
    }

    Held read(HttpServletRequest request, String userId) throws GatewayError, IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            throw tooLarge();
        }
        int capacity = (int) (declared >= 0 ? declared : Math.min(CHUNKED_START, maxBytes));
        Claims claims = new Claims(userId);
        claims.claim(capacity);
        ReadDeadline deadline = ReadDeadline.start(request, readTimeout);
        try {
            InputStream in = request.getInputStream();
            byte[] body = new byte[capacity];
            int length = 0;
            while (true) {
                if (length == body.length) {
                    if (declared >= 0 || length >= maxBytes) {
                        // full: a declared length is exact (Jetty ends the stream there), and at the limit
                        // one more byte is too many either way
                        deadline.beforeRead();
                        if (in.read() < 0) {
                            break;
                        }
                        throw tooLarge();
                    }
                    int grown = (int) Math.min(body.length * 2L, maxBytes);
                    // old and new buffer both live while copying: claim the new one before allocating it
                    int old = claims.held();
                    claims.claim(grown);
                    body = Arrays.copyOf(body, grown);
                    claims.release(old);
                }
                deadline.beforeRead();
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
                int old = claims.held();
                claims.claim(length);
                body = Arrays.copyOf(body, length);
                claims.release(old);
            }
            return new Held(claims, body);
        } catch (IOException e) {
            claims.releaseAll();
            if (deadline.passed()) {
                throw deadline.timedOut(); // the read was cut at the deadline, not by the client
            }
            throw e;
        } catch (GatewayError | RuntimeException e) {
            claims.releaseAll();
            throw e;
        } finally {
            deadline.restore();
        }
    }

    /** What one body holds of the replica's and of its user's in-flight limits, in permits (KiB). */
    private final class Claims {

        private final String userId;
        private int held;

        Claims(String userId) {
            this.userId = userId;
        }

        /** Claims {@code bytes} more of both limits, or none of them. */
        synchronized void claim(long bytes) throws GatewayError {
            int permits = (int) Math.ceilDiv(Math.max(bytes, 0), UNIT);
            long amount = (long) permits * UNIT;
            boolean[] fits = {false};
            heldByUser.compute(userId, (user, now) -> {
                long before = now == null ? 0 : now;
                fits[0] = before + amount <= maxPerUser;
                return fits[0] ? Long.valueOf(before + amount) : now;
            });
            if (!fits[0]) {
                throw new GatewayError(
                        429,
                        "rate_limit_error",
                        "Fair use: your calls are holding as many request bodies as one user may; wait for them"
                                + " to be sent.",
                        Map.of("x-talkide-denial-reason", "fair_use", "retry-after", "1"));
            }
            if (!inFlight.tryAcquire(permits)) {
                giveBackToUser(amount);
                throw new GatewayError(
                        529,
                        "overloaded_error",
                        "The gateway is holding as many request bodies as it may; try again shortly.",
                        Map.of("retry-after", "1"));
            }
            held += permits;
        }

        private void giveBackToUser(long amount) {
            heldByUser.computeIfPresent(userId, (user, now) -> now - amount == 0 ? null : now - amount);
        }

        synchronized int held() {
            return held;
        }

        /** Gives back {@code permits} of what is held (an older buffer, replaced). */
        synchronized void release(int permits) {
            held -= permits;
            inFlight.release(permits);
            giveBackToUser((long) permits * UNIT);
        }

        synchronized void releaseAll() {
            release(held);
        }
    }

    private GatewayError tooLarge() {
        return new GatewayError(
                413, "request_too_large", "Request body is larger than the gateway's limit of " + maxBytes + " bytes.");
    }
}
