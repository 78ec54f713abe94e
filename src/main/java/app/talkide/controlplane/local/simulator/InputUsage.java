package app.talkide.controlplane.local.simulator;

/**
 * How a request's input tokens split, as {@code usage} reports them: uncached input, prompt-cache
 * writes by lifetime, and prompt-cache reads. The four always add up to the prompt's total.
 */
record InputUsage(int inputTokens, int cacheCreation5m, int cacheCreation1h, int cacheRead) {

    int cacheCreation() {
        return cacheCreation5m + cacheCreation1h;
    }

    int total() {
        return inputTokens + cacheCreation() + cacheRead;
    }
}
