package app.talkide.controlplane.workercontract;

/** A command token failed verification; carries only the reason. */
public class CommandTokenRejected extends Exception {

    private final CommandRejection reason;

    public CommandTokenRejected(CommandRejection reason) {
        super("command token rejected: " + reason.name().toLowerCase(java.util.Locale.ROOT), null, false, false);
        this.reason = reason;
    }

    public CommandRejection reason() {
        return reason;
    }
}
