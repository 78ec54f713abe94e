package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.conversation.AcceptedMessage;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationAccess;
import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.ConversationHistory;
import app.talkide.controlplane.conversation.ConversationNotFound;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.InterruptRequested;
import app.talkide.controlplane.conversation.MessageIntake;
import app.talkide.controlplane.conversation.TurnPage;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironmentBeingDeleted;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentNotOffered;
import app.talkide.controlplane.tenant.TenantEnvironmentOffers;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * What the browser may do with conversations, each step behind the same rule: the caller owns the
 * conversation and is a member of its tenant-environment ({@link ConversationAccess}); otherwise 404.
 */
@Service
class BrowserConversations {

    private static final String DEFAULT_TITLE = "New conversation";
    /** A turn still streaming may be long; the stream replays the rest after the page's cursor. */
    private static final int NEWEST_PAGE_MAX_EVENTS = 5_000;

    private final Conversations conversations;
    private final ConversationAccess access;
    private final Memberships memberships;
    private final TenantEnvironments tenantEnvironments;
    private final MessageIntake intake;
    private final ConversationEventLog eventLog;
    private final ApplicationEventPublisher events;
    private final ConversationHistory history;
    private final TenantEnvironmentOffers offers;

    BrowserConversations(
            Conversations conversations,
            ConversationAccess access,
            Memberships memberships,
            TenantEnvironments tenantEnvironments,
            MessageIntake intake,
            ConversationEventLog eventLog,
            ApplicationEventPublisher events,
            ConversationHistory history,
            TenantEnvironmentOffers offers) {
        this.offers = offers;
        this.conversations = conversations;
        this.access = access;
        this.memberships = memberships;
        this.tenantEnvironments = tenantEnvironments;
        this.intake = intake;
        this.eventLog = eventLog;
        this.events = events;
        this.history = history;
    }

    @Transactional
    Conversation start(String userId, TenantEnvironmentId in, @Nullable String title) {
        if (!memberships.isMember(in, userId)) {
            throw new ConversationProblems.UnknownTenantEnvironment(in);
        }
        if (tenantEnvironments.get(in).status() == TenantEnvironmentStatus.DELETING) {
            throw new TenantEnvironmentBeingDeleted(
                    in, TenantEnvironmentStatus.DELETING, "it takes no new conversations.");
        }
        if (!offers.offered(in)) {
            throw new TenantEnvironmentNotOffered(in);
        }
        String named = title == null || title.isBlank() ? DEFAULT_TITLE : title.strip();
        return conversations.start(in, userId, named);
    }

    /** Newest first; only tenant-environments the caller still belongs to, optionally just one of them. */
    ConversationPage list(String userId, @Nullable TenantEnvironmentId only, @Nullable UUID before, int limit) {
        List<TenantEnvironmentId> mine = memberships.tenantEnvironmentsOf(userId);
        List<TenantEnvironmentId> in =
                only == null ? mine : mine.stream().filter(only::equals).toList();
        Conversation cursor = before == null ? null : cursor(before, userId);
        List<Conversation> page = conversations.ownedBy(userId, in, cursor, limit + 1);
        boolean more = page.size() > limit;
        List<ConversationView> shown =
                page.stream().limit(limit).map(ConversationView::of).toList();
        return new ConversationPage(shown, more ? shown.getLast().id() : null);
    }

    private Conversation cursor(UUID before, String userId) {
        try {
            return access.readableBy(before, userId);
        } catch (ConversationNotFound notYours) {
            throw new ConversationProblems.InvalidQuery("before", "not a conversation of yours");
        }
    }

    Conversation get(String userId, UUID conversationId) {
        return access.readableBy(conversationId, userId);
    }

    AcceptedMessage send(String userId, UUID conversationId, String clientMessageId, String text) {
        Conversation conversation = access.readableBy(conversationId, userId);
        return intake.accept(conversation, userId, clientMessageId, text);
    }

    void interrupt(String userId, UUID conversationId) {
        Conversation conversation = access.readableBy(conversationId, userId);
        events.publishEvent(new InterruptRequested(conversation.id(), userId));
    }

    EventPage events(String userId, UUID conversationId, long after, int limit) {
        access.readableBy(conversationId, userId);
        List<ConversationEvent> read = eventLog.readAfter(conversationId, after, limit + 1);
        return new EventPage(read.stream().limit(limit).map(EventView::of).toList(), read.size() > limit);
    }

    HistoryPage history(String userId, UUID conversationId, @Nullable Long before, int turns) {
        access.readableBy(conversationId, userId);
        TurnPage page = history.turnsBefore(
                conversationId, before == null ? Long.MAX_VALUE : before, turns, NEWEST_PAGE_MAX_EVENTS);
        return new HistoryPage(page.events().stream().map(EventView::of).toList(), page.before(), page.cursor());
    }
}
