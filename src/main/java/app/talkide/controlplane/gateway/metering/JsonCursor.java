package app.talkide.controlplane.gateway.metering;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A cursor over the bytes of one JSON text that skips values and measures strings without building
 * anything: no objects, no strings, no parser per use. It accepts what Jackson's default parser accepts
 * (RFC 8259, UTF-8 as Jackson decodes it, nesting up to {@value #MAX_DEPTH}) and throws {@link NotJson}
 * where Jackson would throw.
 *
 * <p>Over 300 lines, for a reason: it is one grammar over one position in one byte array, and split
 * across files each part would need the cursor's state handed to it.
 */
final class JsonCursor {

    /** Jackson's default nesting limit: deeper is refused there, so here too. */
    static final int MAX_DEPTH = 500;

    private static final String[] NO_NAMES = {};

    private final byte[] data;
    private final int end;
    private int at;

    JsonCursor(byte[] data, int offset, int length) {
        this.data = data;
        this.at = offset;
        this.end = offset + length;
    }

    /** Skips white space, then opens an object; false if it is empty (its brace is read too). */
    boolean openObject(int depth) throws NotJson {
        if (depth > MAX_DEPTH) {
            throw NotJson.INSTANCE;
        }
        space();
        expect('{');
        space();
        return !take('}');
    }

    /** After a member's value: true if another member follows (its comma read), false at the closing brace. */
    boolean nextMember() throws NotJson {
        space();
        if (take(',')) {
            return true;
        }
        expect('}');
        return false;
    }

    /** Reads a member's name and its colon; which of {@code names} it is, or -1. */
    int name(String... names) throws NotJson {
        space();
        int found = stringAmong(names);
        space();
        expect(':');
        space();
        return found;
    }

    /** The next value is a string. */
    boolean atString() throws NotJson {
        return peek() == '"';
    }

    /** The next value is an object. */
    boolean atObject() throws NotJson {
        return peek() == '{';
    }

    /** Reads a string value; which of {@code values} it is, or -1. */
    int stringAmong(String... values) throws NotJson {
        int start = at + 1;
        boolean plain = skipString();
        @Nullable String decoded = plain ? null : decoded(start); // rare: written with escapes
        for (int i = 0; i < values.length; i++) {
            if (decoded == null ? is(start, at - 1 - start, values[i]) : decoded.equals(values[i])) {
                return i;
            }
        }
        return -1;
    }

    /** Reads a string value; its decoded length in UTF-16 units, as {@code String.length()} would say. */
    long stringLength() throws NotJson {
        expect('"');
        long units = 0;
        while (true) {
            int b = next();
            if (b == '"') {
                return units;
            }
            if (b == '\\') {
                escape();
                units++;
            } else {
                units += utf8Rest(b);
            }
        }
    }

    /** Skips one value of any kind; {@code depth} is the nesting depth it has if it is an object or array. */
    void skipValue(int depth) throws NotJson {
        switch (peek()) {
            case '"' -> stringLength();
            case '{' -> {
                if (openObject(depth)) {
                    do {
                        name(NO_NAMES);
                        skipValue(depth + 1);
                    } while (nextMember());
                }
            }
            case '[' -> {
                if (depth > MAX_DEPTH) {
                    throw NotJson.INSTANCE;
                }
                at++;
                space();
                if (!take(']')) {
                    do {
                        space();
                        skipValue(depth + 1);
                        space();
                    } while (take(','));
                    expect(']');
                }
            }
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> number();
        }
    }

    /** Only white space is left: the text was one value. */
    void end() throws NotJson {
        space();
        if (at != end) {
            throw NotJson.INSTANCE;
        }
    }

    private boolean is(int start, int length, String name) {
        if (length != name.length()) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (data[start + i] != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Skips a string; whether it held no escape (then its bytes are its text). */
    private boolean skipString() throws NotJson {
        expect('"');
        boolean plain = true;
        while (true) {
            int b = next();
            if (b == '"') {
                return plain;
            }
            if (b == '\\') {
                plain = false;
                escape();
            } else {
                utf8Rest(b);
            }
        }
    }

    /**
     * The string starting at {@code start} (after its quote), which {@link #skipString} has checked,
     * with its escapes decoded. Rare (a name written with escapes), so it may allocate. Bytes above ASCII
     * stay single chars: no name or value compared here has any.
     */
    private String decoded(int start) {
        StringBuilder text = new StringBuilder();
        for (int i = start; data[i] != '"'; i++) {
            int b = data[i] & 0xff;
            if (b != '\\') {
                text.append((char) b);
                continue;
            }
            int e = data[++i];
            switch (e) {
                case 'u' -> {
                    text.append((char) Integer.parseInt(new String(data, i + 1, 4, StandardCharsets.ISO_8859_1), 16));
                    i += 4;
                }
                case 'n' -> text.append('\n');
                case 't' -> text.append('\t');
                case 'r' -> text.append('\r');
                case 'b' -> text.append('\b');
                case 'f' -> text.append('\f');
                default -> text.append((char) e); // " \ /
            }
        }
        return text.toString();
    }

    private void escape() throws NotJson {
        switch (next()) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {}
            case 'u' -> {
                for (int i = 0; i < 4; i++) {
                    if (Character.digit(next(), 16) < 0) {
                        throw NotJson.INSTANCE;
                    }
                }
            }
            default -> throw NotJson.INSTANCE;
        }
    }

    /**
     * Checks the rest of the UTF-8 sequence {@code lead} starts inside a string; the UTF-16 units it
     * decodes to. As Jackson: the lead byte says the length, continuation bytes must be 10xxxxxx, a raw
     * control character or a byte that cannot lead is not JSON.
     */
    private int utf8Rest(int lead) throws NotJson {
        if (lead >= 0x20 && lead < 0x80) {
            return 1;
        }
        int more;
        if ((lead & 0xE0) == 0xC0) {
            more = 1;
        } else if ((lead & 0xF0) == 0xE0) {
            more = 2;
        } else if ((lead & 0xF8) == 0xF0) {
            more = 3;
        } else {
            throw NotJson.INSTANCE;
        }
        for (int i = 0; i < more; i++) {
            if ((next() & 0xC0) != 0x80) {
                throw NotJson.INSTANCE;
            }
        }
        return more == 3 ? 2 : 1; // four bytes decode to a surrogate pair
    }

    private void literal(String word) throws NotJson {
        for (int i = 0; i < word.length(); i++) {
            if (next() != word.charAt(i)) {
                throw NotJson.INSTANCE;
            }
        }
    }

    /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}, as RFC 8259 has it. */
    private void number() throws NotJson {
        take('-');
        if (!take('0')) {
            digits();
        }
        if (take('.')) {
            digits();
        }
        if (take('e') || take('E')) {
            if (!take('+')) {
                take('-');
            }
            digits();
        }
    }

    private void digits() throws NotJson {
        if (at >= end || data[at] < '0' || data[at] > '9') {
            throw NotJson.INSTANCE;
        }
        while (at < end && data[at] >= '0' && data[at] <= '9') {
            at++;
        }
    }

    private void space() {
        while (at < end && (data[at] == ' ' || data[at] == '\n' || data[at] == '\r' || data[at] == '\t')) {
            at++;
        }
    }

    private int peek() throws NotJson {
        if (at >= end) {
            throw NotJson.INSTANCE;
        }
        return data[at] & 0xff;
    }

    private int next() throws NotJson {
        if (at >= end) {
            throw NotJson.INSTANCE;
        }
        return data[at++] & 0xff;
    }

    private boolean take(char c) {
        if (at < end && data[at] == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) throws NotJson {
        if (!take(c)) {
            throw NotJson.INSTANCE;
        }
    }
}
