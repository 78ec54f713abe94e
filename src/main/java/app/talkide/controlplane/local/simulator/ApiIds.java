package app.talkide.controlplane.local.simulator;

import java.security.SecureRandom;

/** Identifiers shaped like the real API's: {@code req_011C…}, {@code msg_01…}, {@code toolu_01…}. */
final class ApiIds {

    private static final String BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    private static final SecureRandom RANDOM = new SecureRandom();

    private ApiIds() {}

    static String request() {
        return "req_011C" + random(20);
    }

    static String message() {
        return "msg_01" + random(22);
    }

    static String toolUse() {
        return "toolu_01" + random(22);
    }

    static String random(int length) {
        StringBuilder id = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            id.append(BASE58.charAt(RANDOM.nextInt(BASE58.length())));
        }
        return id.toString();
    }
}
