package app.talkide.controlplane.budget;

import java.math.BigDecimal;

/** Micro-dollars as people read them. */
final class Money {

    private Money() {}

    static String format(long micros) {
        return "$"
                + BigDecimal.valueOf(micros, 6)
                        .setScale(2, java.math.RoundingMode.HALF_UP)
                        .toPlainString();
    }
}
