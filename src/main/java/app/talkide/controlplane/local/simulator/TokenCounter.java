package app.talkide.controlplane.local.simulator;

/**
 * The simulator's tokenizer: four characters (code points) a token, rounded up, the rule of thumb for
 * English text with Claude's tokenizer. Input and output are counted the same way, so counts add up.
 */
final class TokenCounter {

    static final int CHARS_PER_TOKEN = 4;

    private TokenCounter() {}

    static int of(String text) {
        int codePoints = text.codePointCount(0, text.length());
        return (codePoints + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    }

    /** The longest prefix of {@code text} that costs at most {@code tokens}. */
    static String truncate(String text, int tokens) {
        long keep = (long) tokens * CHARS_PER_TOKEN;
        if (text.codePointCount(0, text.length()) <= keep) {
            return text;
        }
        return text.substring(0, text.offsetByCodePoints(0, (int) keep));
    }
}
