package app.talkide.controlplane.gateway.metering;

/** Not JSON, as {@link JsonCursor} reads it. Thrown without a stack trace: hostile input must cost no more than good input. */
final class NotJson extends Exception {

    static final NotJson INSTANCE = new NotJson();

    private NotJson() {
        super(null, null, false, false);
    }
}
