package app.talkide.controlplane.console;

import static app.talkide.controlplane.console.ConsoleBrowserSupport.PAGE;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.signIn;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitFor;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitForText;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildLog;
import app.talkide.controlplane.builds.BuildState;
import app.talkide.controlplane.builds.Builds;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A {@code run_build} tool card in headless Chromium: while the tool runs it finds the conversation's build
 * and shows its log line by line as the leader stores it, then the outcome. The build is a row (this
 * context runs no Kubernetes); its log is written through {@link BuildLog} as the leader writes it, and the
 * tool's events are appended to the conversation's log as the worker's stream appends them.
 */
@Tag("browser")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "talkide.gateway.api-key=")
class BuildLogBrowserTest {

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");
    static final By LOG = By.cssSelector("#transcript .tool .build-log");

    @LocalServerPort
    int port;

    @Autowired
    Conversations conversations;

    @Autowired
    ConversationEventLog events;

    @Autowired
    Builds builds;

    @Autowired
    BuildLog log;

    @Autowired
    JdbcClient jdbc;

    ChromiumBrowser browser;

    @BeforeEach
    void startBrowser() {
        browser = new ChromiumBrowser("http://127.0.0.1:" + port);
        signIn(browser, "dev", "dev");
        waitFor(browser, By.id("budget-summary"));
    }

    @AfterEach
    void stopBrowser() {
        browser.close();
    }

    @Test
    void aRunBuildCardStreamsItsBuildsLogWhileTheBuildRuns() {
        Conversation conversation = conversations.start(DEMO, "dev", "Builds in the console");
        String turn = UUID.randomUUID().toString();
        String message = UUID.randomUUID().toString();
        append(conversation, "turn.started", "{\"turnId\":\"%s\",\"messageId\":\"%s\"}".formatted(turn, message));
        append(conversation, "tool.started", """
                {"turnId":"%s","messageId":"%s","toolUseId":"toolu_1","name":"mcp__talkide-builds__run_build",
                 "input":{"kind":"gradle","tasks":["test"]}}""".formatted(turn, message));
        UUID build = queueBuild(conversation);

        browser.open("/#c=" + conversation.id());
        WebElement card = waitFor(browser, LOG);
        browser.waitUpTo(PAGE).until(driver -> build.toString().equals(card.getAttribute("data-build-id")));
        log.append(build, List.of("> Task :compileJava"));
        waitForText(browser, LOG, "> Task :compileJava");
        log.append(build, List.of("> Task :test", "BUILD SUCCESSFUL in 3s"));
        waitForText(browser, LOG, "BUILD SUCCESSFUL in 3s");
        assertThat(card.getAttribute("data-state")).as("still running").isNull();
        browser.screenshot("conversation-build-log");

        Build running = builds.find(build).orElseThrow();
        assertThat(builds.finish(running, BuildState.RUNNING, BuildState.SUCCEEDED, null))
                .isTrue();
        browser.waitUpTo(PAGE).until(driver -> "succeeded".equals(card.getAttribute("data-state")));
        append(conversation, "tool.completed", """
                {"turnId":"%s","messageId":"%s","toolUseId":"toolu_1","name":"mcp__talkide-builds__run_build",
                 "isError":false,"output":"Build %s succeeded in 3.0 s."}""".formatted(turn, message, build));
        waitForText(browser, By.cssSelector("#transcript .tool .tool-state"), "done");
        assertThat(card.findElement(By.cssSelector(".build-log-lines")).getText())
                .isEqualTo("> Task :compileJava\n> Task :test\nBUILD SUCCESSFUL in 3s");

        // After a reload the completed card finds its build by the id in the tool's output and replays it.
        browser.driver.navigate().refresh();
        WebElement replayed = waitFor(browser, LOG);
        browser.waitUpTo(PAGE).until(driver -> "succeeded".equals(replayed.getAttribute("data-state")));
        assertThat(replayed.getText()).contains("> Task :compileJava", "BUILD SUCCESSFUL in 3s");
        browser.assertNoConsoleErrors();
    }

    /** What the worker's POST and the leader's dispatch leave behind: a running build of the conversation. */
    private UUID queueBuild(Conversation conversation) {
        UUID id = UUID.randomUUID();
        jdbc.sql("""
                        insert into build (id, tenant, env, conversation_id, user_id, kind, spec, state, created_at)
                        values (:id, :t, :e, :c, 'dev', 'gradle', :spec, 'QUEUED', :now)
                        """)
                .param("id", id)
                .param("t", DEMO.tenant())
                .param("e", DEMO.env())
                .param("c", conversation.id())
                .param("spec", "{\"kind\":\"GRADLE\",\"tasks\":[\"test\"],\"arguments\":[]}")
                .param("now", Timestamp.from(Instant.now()))
                .update();
        assertThat(builds.claimNext(DEMO)).map(Build::id).contains(id);
        return id;
    }

    private void append(Conversation conversation, String type, String data) {
        events.append(conversation.id(), List.of(new NewConversationEvent(type, data.replace("\n", ""), null)));
    }
}
