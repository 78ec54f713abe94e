package app.talkide.controlplane.gateway.metering;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The word-at-a-time search finds the same break as a byte-by-byte one, wherever the range starts and ends. */
class LineBreaksProperties {

    @Property(tries = 3000)
    void findsTheFirstBreakAsAByteLoopDoes(@ForAll("lines") byte[] bytes, @ForAll int a, @ForAll int b) {
        int from = Math.floorMod(a, bytes.length + 1);
        int to = from + Math.floorMod(b, bytes.length - from + 1);
        int expected = from;
        while (expected < to && bytes[expected] != '\n' && bytes[expected] != '\r') {
            expected++;
        }
        assertThat(LineBreaks.next(bytes, from, to)).isEqualTo(expected);
    }

    @Provide
    Arbitrary<byte[]> lines() {
        // Mostly text with the odd break, and bytes that differ from CR or LF by one bit.
        Arbitrary<Byte> text = Arbitraries.bytes().between((byte) 0x20, (byte) 0x7e);
        Arbitrary<Byte> near =
                Arbitraries.of((byte) '\n', (byte) '\r', (byte) 0x0b, (byte) 0x8a, (byte) 0x8d, (byte) 0x09, (byte) 0);
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(20, text),
                        net.jqwik.api.Tuple.of(1, near),
                        net.jqwik.api.Tuple.of(1, Arbitraries.bytes()))
                .array(byte[].class)
                .ofMaxSize(80);
    }
}
