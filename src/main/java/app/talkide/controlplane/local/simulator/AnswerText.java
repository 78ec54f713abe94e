package app.talkide.controlplane.local.simulator;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The words of a simulated answer, a pure function of the prompt: a lead sentence quoting it, then two
 * to four sentences picked by the prompt's hash (or as many as a requested length needs). The same
 * prompt always gets the same answer; tests and the browser console can rely on the quote.
 */
final class AnswerText {

    static final int PREVIEW_LENGTH = 80;

    static final List<String> SENTENCES = List.of(
            "This answer comes from the built-in Anthropic simulator, not from a model.",
            "It is derived from your message, so the same message always gets the same words.",
            "Set ANTHROPIC_API_KEY and restart to talk to the real Anthropic API instead.",
            "Every token here is counted and charged to your budget like a real one.",
            "The simulator counts four characters as one token, for input and output alike.",
            "Write [[sim:tool_use]] in a message to see a tool call.",
            "Write [[sim:slow]] in a message to watch a slow stream arrive.",
            "Write [[sim:overloaded]] in a message to see an upstream failure in the middle of a stream.",
            "Write [[sim:length=500]] in a message for a longer answer.",
            "The stream is paced like a model's: a pause before the first words, then a few words at a time.");

    private AnswerText() {}

    /** The lead sentence for a prompt: {@code Simulated reply to “…”.} */
    static String lead(String prompt) {
        String preview = preview(prompt);
        return preview.isEmpty() ? "Simulated reply to an empty message." : "Simulated reply to “" + preview + "”.";
    }

    /**
     * The whole answer: the lead, then sentences chosen by {@code seed}; with a {@code length}, sentences
     * are added until the answer costs exactly that many tokens.
     */
    static String answer(String lead, String seed, @Nullable Integer length) {
        int hash = seed.hashCode();
        int first = Math.floorMod(hash / 3, SENTENCES.size());
        StringBuilder text = new StringBuilder(lead);
        if (length == null) {
            int count = 2 + Math.floorMod(hash, 3);
            for (int i = 0; i < count; i++) {
                text.append(' ').append(SENTENCES.get((first + i) % SENTENCES.size()));
            }
            return text.toString();
        }
        for (int i = 0; TokenCounter.of(text.toString()) < length; i++) {
            text.append(' ').append(SENTENCES.get((first + i) % SENTENCES.size()));
        }
        return TokenCounter.truncate(text.toString(), length);
    }

    /** The prompt on one line, markers removed, cut to {@value #PREVIEW_LENGTH} characters. */
    static String preview(String prompt) {
        String line = PromptMarkers.strip(prompt).replaceAll("\\s+", " ").strip();
        if (line.codePointCount(0, line.length()) <= PREVIEW_LENGTH) {
            return line;
        }
        return line.substring(0, line.offsetByCodePoints(0, PREVIEW_LENGTH - 1)) + "…";
    }

    /** The normalized prompt the answer's choice of sentences depends on. */
    static String seed(String prompt) {
        return PromptMarkers.strip(prompt).replaceAll("\\s+", " ").strip();
    }
}
