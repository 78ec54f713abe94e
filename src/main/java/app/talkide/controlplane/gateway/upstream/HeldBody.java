package app.talkide.controlplane.gateway.upstream;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request body that is published only once {@code release} completes, and never if it fails. The
 * HTTP client takes a connection and writes the request line and headers meanwhile; the upstream cannot
 * act on a request whose body has not arrived, so nothing is spent before the release. A failed release
 * aborts the request: the client closes the connection without a byte of the body sent.
 */
final class HeldBody implements Flow.Publisher<ByteBuffer> {

    private final byte[] body;
    private final CompletionStage<Void> release;

    HeldBody(byte[] body, CompletionStage<Void> release) {
        this.body = body;
        this.release = release;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        subscriber.onSubscribe(new Subscription(subscriber));
    }

    private final class Subscription implements Flow.Subscription {

        private final Flow.Subscriber<? super ByteBuffer> subscriber;
        private final AtomicBoolean requested = new AtomicBoolean();
        private volatile boolean cancelled;

        Subscription(Flow.Subscriber<? super ByteBuffer> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                cancelled = true;
                subscriber.onError(new IllegalArgumentException("non-positive request: " + n));
                return;
            }
            if (!requested.compareAndSet(false, true)) {
                return; // the whole body is one buffer: a second demand has nothing left to get
            }
            // Runs on the thread that releases (the request's own, right after the reservation), so the
            // body goes out without another hand-off.
            release.whenComplete((ignored, refused) -> {
                if (cancelled) {
                    return;
                }
                if (refused != null) {
                    subscriber.onError(refused);
                    return;
                }
                subscriber.onNext(ByteBuffer.wrap(body));
                subscriber.onComplete();
            });
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }
}
