package app.talkide.controlplane.token.mint;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/** The conversation the worker wants a WorkerToken for. */
record MintRequest(
        @NotNull
        @Pattern(
                regexp = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                message = "must be a conversation id (UUID)")
        String conversationId) {}
