package app.talkide.controlplane.conversation.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/** The browser's message to a conversation; {@code clientMessageId} makes a resend a duplicate. */
record SendMessage(
        @NotBlank @Size(max = MAX_TEXT) String text,

        @NotBlank @Size(max = 200) @Pattern(regexp = "[^\\p{Cntrl}]+", message = "must not contain control characters")
        String clientMessageId) {

    /** The worker contract's limit for a message's text. */
    static final int MAX_TEXT = 100_000;
}
