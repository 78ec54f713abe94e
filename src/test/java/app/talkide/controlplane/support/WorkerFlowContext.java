package app.talkide.controlplane.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A message's whole flow over real sockets: the embedded reference worker with quick delivery retries, the
 * gateway with a key in front of the shared WireMock upstream, every span captured. One configuration for the
 * flow and trace tests, so they share one cached context (and database): each test reads its own
 * conversation's events and its own trace's spans, never all of them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@CapturesSpans
@WithWireMockUpstream
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.worker.delivery.initial-backoff=50ms",
            "talkide.worker.delivery.max-backoff=500ms",
            "talkide.gateway.api-key=" + WorkerFlowContext.API_KEY,
            "talkide.localdev.worker-model=" + WorkerFlowContext.MODEL
        })
public @interface WorkerFlowContext {

    String API_KEY = "sk-ant-test-key";
    String MODEL = "claude-sonnet-4-5-20250929";
}
