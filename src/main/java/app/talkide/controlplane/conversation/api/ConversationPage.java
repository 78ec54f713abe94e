package app.talkide.controlplane.conversation.api;

import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One page of the caller's conversations, newest first.
 *
 * @param next the {@code before} of the next page; null on the last page
 */
record ConversationPage(
        List<ConversationView> conversations, @Nullable UUID next) {}
