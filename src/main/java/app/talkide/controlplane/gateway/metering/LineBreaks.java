package app.talkide.controlplane.gateway.metering;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds the next CR or LF in a byte range, eight bytes at a time: every byte of a stream is scanned for
 * line breaks twice (cutting events, then naming their lines), and the data lines are long. A word with
 * no CR or LF in it is skipped in a few arithmetic operations (the classic "has a zero byte" test on the
 * word XORed with each).
 */
final class LineBreaks {

    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long LFS = ONES * '\n';
    private static final long CRS = ONES * '\r';

    private LineBreaks() {}

    /** The index of the first CR or LF in {@code [from, to)}, or {@code to} if there is none. */
    static int next(byte[] bytes, int from, int to) {
        int i = from;
        while (i + Long.BYTES <= to) {
            long word = (long) WORDS.get(bytes, i);
            if (hasZeroByte(word ^ LFS) || hasZeroByte(word ^ CRS)) {
                break; // a break is in this word: the byte loop finds which byte
            }
            i += Long.BYTES;
        }
        while (i < to && bytes[i] != '\n' && bytes[i] != '\r') {
            i++;
        }
        return i;
    }

    private static boolean hasZeroByte(long word) {
        return ((word - ONES) & ~word & HIGHS) != 0;
    }
}
