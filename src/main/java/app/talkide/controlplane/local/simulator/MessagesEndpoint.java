package app.talkide.controlplane.local.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;

/**
 * {@code POST /v1/messages}: reads the markers, composes the reply, accounts input (prompt cache
 * included) and renders the reply as a paced event stream or, after the same pause, as one JSON message.
 */
final class MessagesEndpoint {

    private final SimulatorProperties properties;
    private final PromptCache cache;

    MessagesEndpoint(SimulatorProperties properties, PromptCache cache) {
        this.properties = properties;
        this.cache = cache;
    }

    void answer(HttpExchange exchange, SimulatedRequest request, String requestId)
            throws IOException, InterruptedException {
        Prompt prompt = Prompt.of(request);
        PromptMarkers markers = PromptMarkers.in(request.promptTurn().text(), properties.slowChunkDelay());
        if (markers.status() != null) {
            throw new ApiError(
                    markers.status(), "Simulated error, asked for by [[sim:status=" + markers.status() + "]]");
        }
        if (markers.overloaded() && !request.stream()) {
            throw new ApiError(529, "Overloaded");
        }
        Reply reply = ReplyComposer.compose(request, markers);
        InputUsage input = cache.account(prompt);
        Pacing pacing = Pacing.of(properties, markers);
        String messageId = ApiIds.message();
        if (request.stream()) {
            OutputStream out = Exchanges.startEventStream(exchange, requestId);
            new MessageStream(out, pacing, properties.wordsPerChunk())
                    .write(messageId, request.model(), reply, input, markers.overloaded(), requestId);
        } else {
            Pacing.pause(pacing.total(MessageStream.deltaCount(reply, properties.wordsPerChunk())));
            Exchanges.json(
                    exchange,
                    200,
                    WireFormat.message(messageId, request.model(), reply, true, input, reply.outputTokens()),
                    requestId);
        }
    }
}
