package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.conversation.AcceptedMessage;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationEvent;
import com.fasterxml.jackson.annotation.JsonRawValue;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** The JSON the browser API reads and writes. */
final class ApiRecords {

    /** The worker contract's limit for a message's text. */
    static final int MAX_TEXT = 100_000;

    private ApiRecords() {}

    record StartConversation(
            @NotBlank @Size(max = 63) String tenant,
            @NotBlank @Size(max = 63) String env,
            @Nullable @Size(max = 200) String title) {}

    record SendMessage(
            @NotBlank @Size(max = MAX_TEXT) String text,

            @NotBlank
            @Size(max = 200)
            @Pattern(regexp = "[^\\p{Cntrl}]+", message = "must not contain control characters")
            String clientMessageId) {}

    record ConversationView(UUID id, String tenant, String env, String title, Instant createdAt) {
        static ConversationView of(Conversation conversation) {
            return new ConversationView(
                    conversation.id(),
                    conversation.tenantEnvironment().tenant(),
                    conversation.tenantEnvironment().env(),
                    conversation.title(),
                    conversation.createdAt());
        }
    }

    /** @param next the {@code before} of the next page; null on the last page */
    record ConversationPage(
            List<ConversationView> conversations, @Nullable UUID next) {}

    record MessageReceipt(
            UUID messageId, UUID conversationId, String clientMessageId, Instant acceptedAt, boolean duplicate) {
        static MessageReceipt of(AcceptedMessage accepted) {
            return new MessageReceipt(
                    accepted.messageId(),
                    accepted.conversationId(),
                    accepted.clientMessageId(),
                    accepted.acceptedAt(),
                    accepted.duplicate());
        }
    }

    /** An event as the stream sends it: {@code data} is the event's JSON object, not a string. */
    record EventView(long seq, String type, @JsonRawValue String data, Instant createdAt) {
        static EventView of(ConversationEvent event) {
            return new EventView(event.seq(), event.type(), event.data(), event.createdAt());
        }
    }

    /** @param hasMore more events follow the last one here: ask again with {@code after} = its seq */
    record EventPage(List<EventView> events, boolean hasMore) {}

    /**
     * @param before pass as {@code before} for the turns before these; null: this page starts at the beginning
     * @param cursor the last sequence number this page covers: open the stream with {@code lastEventId} = it
     */
    record HistoryPage(List<EventView> events, @Nullable Long before, long cursor) {}
}
