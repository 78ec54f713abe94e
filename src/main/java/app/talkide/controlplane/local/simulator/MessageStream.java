package app.talkide.controlplane.local.simulator;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * Renders a {@link Reply} as the Messages API event stream, flushing every event as it is written:
 * {@code message_start} (input usage), per block {@code content_block_start} / deltas /
 * {@code content_block_stop} with a {@code ping} after the first start (a thinking block streams
 * {@code thinking_delta}s and ends with one {@code signature_delta}), then {@code message_delta}
 * (stop reason, cumulative usage) and {@code message_stop}. A failing reply ends half-way through its
 * first block with an {@code error} event and no {@code message_stop}, as an overloaded API does.
 */
final class MessageStream {

    private final OutputStream out;
    private final Pacing pacing;
    private final int wordsPerChunk;

    MessageStream(OutputStream out, Pacing pacing, int wordsPerChunk) {
        this.out = out;
        this.pacing = pacing;
        this.wordsPerChunk = wordsPerChunk;
    }

    /** Number of deltas a reply streams as, for pacing a non-streaming answer the same way. */
    static int deltaCount(Reply reply, int wordsPerChunk) {
        return reply.blocks().stream()
                .mapToInt(block -> pieces(block, wordsPerChunk).size())
                .sum();
    }

    void write(String messageId, String model, Reply reply, InputUsage input, boolean failMidStream, String requestId)
            throws IOException, InterruptedException {
        int output = reply.outputTokens();
        ObjectNode start = WireFormat.event("message_start");
        start.set("message", WireFormat.message(messageId, model, reply, false, input, Math.min(1, output)));
        send(start);
        if (reply.blocks().isEmpty()) {
            send(WireFormat.event("ping"));
        }
        boolean first = true;
        for (int index = 0; index < reply.blocks().size(); index++) {
            Reply.Block block = reply.blocks().get(index);
            ObjectNode blockStart = WireFormat.event("content_block_start");
            blockStart.put("index", index);
            blockStart.set("content_block", WireFormat.block(block, false));
            send(blockStart);
            if (first) {
                send(WireFormat.event("ping"));
                pacing.beforeFirstChunk();
            }
            List<String> pieces = pieces(block, wordsPerChunk);
            int failAfter = failMidStream ? Math.max(1, pieces.size() / 2) : Integer.MAX_VALUE;
            for (int p = 0; p < pieces.size(); p++) {
                if (p > 0 || !first) {
                    pacing.betweenChunks();
                }
                send(delta(index, block, pieces.get(p), p == pieces.size() - 1));
                if (p + 1 >= failAfter) {
                    sendError("overloaded_error", "Overloaded", requestId);
                    return;
                }
            }
            first = false;
            ObjectNode blockStop = WireFormat.event("content_block_stop");
            blockStop.put("index", index);
            send(blockStop);
        }
        if (failMidStream) {
            sendError("overloaded_error", "Overloaded", requestId);
            return;
        }
        ObjectNode messageDelta = WireFormat.event("message_delta");
        ObjectNode delta = messageDelta.putObject("delta");
        delta.put("stop_reason", reply.stopReason());
        delta.put("stop_sequence", reply.stopSequence());
        delta.putNull("stop_details");
        messageDelta.set("usage", WireFormat.deltaUsage(input, output));
        send(messageDelta);
        send(WireFormat.event("message_stop"));
    }

    private static List<String> pieces(Reply.Block block, int wordsPerChunk) {
        return switch (block) {
            case Reply.Text text -> DeltaChunker.words(text.text(), wordsPerChunk);
            case Reply.Thinking thinking -> {
                // The thinking text word by word, then its signature as the block's last delta.
                List<String> pieces = new ArrayList<>(DeltaChunker.words(thinking.thinking(), wordsPerChunk));
                pieces.add(thinking.signature());
                yield pieces;
            }
            case Reply.ToolUse tool -> DeltaChunker.json(tool.inputJson());
        };
    }

    private static ObjectNode delta(int index, Reply.Block block, String piece, boolean last) {
        ObjectNode event = WireFormat.event("content_block_delta");
        event.put("index", index);
        ObjectNode delta = event.putObject("delta");
        switch (block) {
            case Reply.Text ignored -> {
                delta.put("type", "text_delta");
                delta.put("text", piece);
            }
            case Reply.Thinking ignored -> {
                // The last piece of a thinking block is its signature.
                delta.put("type", last ? "signature_delta" : "thinking_delta");
                delta.put(last ? "signature" : "thinking", piece);
            }
            case Reply.ToolUse ignored -> {
                delta.put("type", "input_json_delta");
                delta.put("partial_json", piece);
            }
        }
        return event;
    }

    private void sendError(String type, String message, String requestId) throws IOException {
        send(WireFormat.error(type, message, requestId));
    }

    private void send(ObjectNode event) throws IOException {
        String frame = "event: " + event.get("type").stringValue() + "\ndata: " + event + "\n\n";
        out.write(frame.getBytes(StandardCharsets.UTF_8));
        // One flush per event: the client must see each event when it is "generated", not when a
        // buffer happens to fill.
        out.flush();
    }
}
