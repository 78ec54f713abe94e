package app.talkide.controlplane.workercontract;

/** The keys of a worker's Secret {@code talkide-worker-token}, as provisioning writes it and a worker reads it. */
public final class WorkerSecretKeys {

    /** The identity token ({@code tkwi_…}) the worker trades for WorkerTokens. */
    public static final String IDENTITY_TOKEN = "identity-token";

    /** The command keys ({@code kid:base64,…}) the worker verifies command tokens with. */
    public static final String COMMAND_KEY = "command-key";

    private WorkerSecretKeys() {}
}
