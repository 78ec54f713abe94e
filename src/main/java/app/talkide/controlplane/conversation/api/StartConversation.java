package app.talkide.controlplane.conversation.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import org.jspecify.annotations.Nullable;

/** The browser's request to start a conversation in a tenant-environment. */
record StartConversation(
        @NotBlank @Size(max = 63) String tenant,
        @NotBlank @Size(max = 63) String env,
        @Nullable @Size(max = 200) String title) {}
