package app.talkide.controlplane.local.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Cuts an answer into the pieces its deltas carry; the pieces always join back to the whole. */
final class DeltaChunker {

    private static final Pattern WORD = Pattern.compile("\\s*\\S+\\s*|\\s+");
    static final int JSON_CHUNK_CODE_POINTS = 16;

    private DeltaChunker() {}

    /** Text in pieces of {@code wordsPerChunk} words, each keeping the whitespace that follows it. */
    static List<String> words(String text, int wordsPerChunk) {
        List<String> chunks = new ArrayList<>();
        Matcher word = WORD.matcher(text);
        StringBuilder chunk = new StringBuilder();
        int words = 0;
        while (word.find()) {
            chunk.append(word.group());
            if (++words == wordsPerChunk) {
                chunks.add(chunk.toString());
                chunk.setLength(0);
                words = 0;
            }
        }
        if (!chunk.isEmpty()) {
            chunks.add(chunk.toString());
        }
        return chunks;
    }

    /**
     * Tool input JSON as {@code input_json_delta} pieces: an empty first piece, as the real API sends,
     * then pieces of {@value #JSON_CHUNK_CODE_POINTS} characters, never splitting a character.
     */
    static List<String> json(String json) {
        List<String> chunks = new ArrayList<>();
        chunks.add("");
        int start = 0;
        while (start < json.length()) {
            int end = json.offsetByCodePoints(
                    start, Math.min(JSON_CHUNK_CODE_POINTS, json.codePointCount(start, json.length())));
            chunks.add(json.substring(start, end));
            start = end;
        }
        return chunks;
    }
}
