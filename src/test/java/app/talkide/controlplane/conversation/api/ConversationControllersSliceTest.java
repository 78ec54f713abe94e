package app.talkide.controlplane.conversation.api;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.Mockito.never;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import app.talkide.controlplane.conversation.AcceptedMessage;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationNotFound;
import app.talkide.controlplane.support.PeopleApiSliceTest;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

/** The browser's conversation API as routes: what reaches the service, and what is refused before it. */
@PeopleApiSliceTest({ConversationController.class, MessageController.class, EventController.class})
class ConversationControllersSliceTest {

    private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-00000000c0de");
    private static final Instant AT = Instant.parse("2026-01-02T03:04:05Z");

    @Autowired
    private MockMvc mvc;

    @MockitoBean
    private BrowserConversations conversations;

    @Test
    void startAnswers201WithTheLocationOfTheNewConversation() throws Exception {
        TenantEnvironmentId demo = TenantEnvironmentId.of("demo", "dev");
        given(conversations.start("alice", demo, "Hi")).willReturn(new Conversation(ID, demo, "alice", "Hi", AT));

        mvc.perform(post("/api/conversations")
                        .with(user("alice").roles("USER"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"tenant\":\"demo\",\"env\":\"dev\",\"title\":\"Hi\"}"))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/conversations/" + ID))
                .andExpect(jsonPath("$.id").value(ID.toString()))
                .andExpect(jsonPath("$.tenant").value("demo"))
                .andExpect(jsonPath("$.title").value("Hi"));
    }

    @Test
    void startWithoutTenantIsA400ProblemNamingTheField() throws Exception {
        mvc.perform(post("/api/conversations")
                        .with(user("alice").roles("USER"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"env\":\"dev\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE))
                .andExpect(jsonPath("$.status").value(400))
                .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString("tenant")));
        then(conversations).shouldHaveNoInteractions();
    }

    @Test
    void anonymousIsA401ProblemAndReachesNothing() throws Exception {
        mvc.perform(get("/api/conversations"))
                .andExpect(status().isUnauthorized())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(conversations).shouldHaveNoInteractions();
    }

    @Test
    void cookieWriteWithoutCsrfTokenIsRefused() throws Exception {
        mvc.perform(post("/api/conversations/{id}/interrupt", ID)
                        .with(user("alice").roles("USER")))
                .andExpect(status().isForbidden());
        then(conversations).should(never()).interrupt(any(), any());
    }

    @Test
    void listPassesTheFilterAndPageAndAnswersTheNextCursor() throws Exception {
        TenantEnvironmentId demo = TenantEnvironmentId.of("demo", "dev");
        UUID next = UUID.randomUUID();
        given(conversations.list("alice", demo, ID, 2))
                .willReturn(new ConversationPage(List.of(new ConversationView(next, "demo", "dev", "t", AT)), next));

        mvc.perform(get("/api/conversations")
                        .param("tenant", "demo")
                        .param("env", "dev")
                        .param("before", ID.toString())
                        .param("limit", "2")
                        .with(user("alice").roles("USER")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.conversations[0].id").value(next.toString()))
                .andExpect(jsonPath("$.next").value(next.toString()));
    }

    @Test
    void listWithTenantButNoEnvIsA400Problem() throws Exception {
        mvc.perform(get("/api/conversations")
                        .param("tenant", "demo")
                        .with(user("alice").roles("USER")))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(conversations).shouldHaveNoInteractions();
    }

    @Test
    void listLimitOutOfRangeIsA400Problem() throws Exception {
        mvc.perform(get("/api/conversations")
                        .param("limit", "201")
                        .with(user("alice").roles("USER")))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(conversations).shouldHaveNoInteractions();
    }

    @Test
    void malformedConversationIdIsA400Problem() throws Exception {
        mvc.perform(get("/api/conversations/not-a-uuid").with(user("alice").roles("USER")))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
    }

    @Test
    void someoneElsesConversationIsA404Problem() throws Exception {
        given(conversations.get("mallory", ID)).willThrow(new ConversationNotFound(ID));

        mvc.perform(get("/api/conversations/{id}", ID).with(user("mallory").roles("USER")))
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.type").value("https://talkide.app/problems/conversation-not-found"));
    }

    @Test
    void sendAnswers202WithTheReceipt() throws Exception {
        UUID messageId = UUID.randomUUID();
        given(conversations.send("alice", ID, "m1", "Hello"))
                .willReturn(new AcceptedMessage(messageId, ID, "m1", AT, false));

        mvc.perform(post("/api/conversations/{id}/messages", ID)
                        .with(user("alice").roles("USER"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"text\":\"Hello\",\"clientMessageId\":\"m1\"}"))
                .andExpect(status().isAccepted())
                .andExpect(jsonPath("$.messageId").value(messageId.toString()))
                .andExpect(jsonPath("$.duplicate").value(false));
    }

    @Test
    void sendWithAControlCharacterInTheClientMessageIdIsA400Problem() throws Exception {
        mvc.perform(post("/api/conversations/{id}/messages", ID)
                        .with(user("alice").roles("USER"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"text\":\"Hello\",\"clientMessageId\":\"m\\u0007\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString("clientMessageId")));
        then(conversations).shouldHaveNoInteractions();
    }

    @Test
    void interruptAnswers202() throws Exception {
        mvc.perform(post("/api/conversations/{id}/interrupt", ID)
                        .with(user("alice").roles("USER"))
                        .with(csrf()))
                .andExpect(status().isAccepted());
        then(conversations).should().interrupt("alice", ID);
    }

    @Test
    void eventsDefaultToTheStartAndAHundredAndSendDataAsJson() throws Exception {
        given(conversations.events("alice", ID, 0, 100))
                .willReturn(new EventPage(List.of(new EventView(1, "message", "{\"text\":\"hi\"}", AT)), false));

        mvc.perform(get("/api/conversations/{id}/events", ID).with(user("alice").roles("USER")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.events[0].data.text").value("hi"))
                .andExpect(jsonPath("$.hasMore").value(false));
    }

    @Test
    void eventsAfterANegativeSeqIsA400Problem() throws Exception {
        mvc.perform(get("/api/conversations/{id}/events", ID)
                        .param("after", "-1")
                        .with(user("alice").roles("USER")))
                .andExpect(status().isBadRequest());
        then(conversations).should(never()).events(any(), any(), anyLong(), anyInt());
    }

    @Test
    void historyPassesBeforeAndTurns() throws Exception {
        given(conversations.history(eq("alice"), eq(ID), isNull(), eq(10)))
                .willReturn(new HistoryPage(List.of(), null, 0));

        mvc.perform(get("/api/conversations/{id}/history", ID)
                        .with(user("alice").roles("USER")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.cursor").value(0));
    }
}
