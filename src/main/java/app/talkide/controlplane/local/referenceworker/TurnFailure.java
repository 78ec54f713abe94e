package app.talkide.controlplane.local.referenceworker;

/** Why a turn ended without an answer: the {@code error.type} of {@code turn.failed}. */
final class TurnFailure extends Exception {

    static final String BUDGET_EXCEEDED = "budget_exceeded";
    static final String UPSTREAM_ERROR = "upstream_error";
    static final String INTERRUPTED = "interrupted";

    final String type;

    TurnFailure(String type, String message) {
        super(message, null, false, false);
        this.type = type;
    }
}
