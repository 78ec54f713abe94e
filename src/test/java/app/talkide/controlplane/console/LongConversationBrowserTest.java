package app.talkide.controlplane.console;

import static app.talkide.controlplane.console.ConsoleBrowserSupport.PAGE;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.signIn;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitFor;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitForText;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.conversation.compaction.LogCompactor;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A long, compacted conversation in headless Chromium: it opens on its last turns and goes live at once,
 * a live delta touches only its text node, earlier turns page in when the reader scrolls up, and pages far
 * above leave the DOM again once the reader is back at the end.
 */
@Tag("browser")
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.gateway.api-key=",
            "talkide.conversations.compaction.enabled=false",
            "talkide.conversations.compaction.after=0s"
        })
class LongConversationBrowserTest {

    static final By ANSWERS = By.cssSelector("#transcript li.assistant");
    static final int TURNS = 60;

    @LocalServerPort
    int port;

    @Autowired
    Conversations conversations;

    @Autowired
    ConversationEventLog log;

    @Autowired
    LogCompactor compactor;

    ChromiumBrowser browser;
    UUID id;

    @BeforeEach
    void setUp() {
        id = conversations
                .start(TenantEnvironmentId.of("demo", "dev"), "dev", "Long conversation")
                .id();
        for (int t = 0; t < TURNS; t++) {
            List<NewConversationEvent> turn = new ArrayList<>();
            turn.add(event("message.accepted", "{\"messageId\":\"m%d\",\"text\":\"Question %d\"}".formatted(t, t)));
            turn.add(event("turn.started", "{\"turnId\":\"t%d\",\"messageId\":\"m%d\"}".formatted(t, t)));
            for (int d = 0; d < 20; d++) {
                turn.add(event("text.delta", "{\"turnId\":\"t%d\",\"text\":\"a%d \"}".formatted(t, d)));
            }
            turn.add(event("text.delta", "{\"turnId\":\"t%d\",\"text\":\"end of answer %d.\"}".formatted(t, t)));
            turn.add(event(
                    "turn.completed",
                    "{\"turnId\":\"t%d\",\"messageId\":\"m%d\",\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":1,\"outputTokens\":2}}"
                            .formatted(t, t)));
            log.append(id, turn);
        }
        assertThat(compactor.compact(id)).isEqualTo(TURNS);
        browser = new ChromiumBrowser("http://127.0.0.1:" + port);
        signIn(browser, "dev", "dev");
        waitForText(browser, By.id("budget-summary"), "spent");
    }

    @AfterEach
    void stopBrowser() {
        browser.close();
    }

    @Test
    void opensOnTheLastTurnsLiveAndPagesEarlierTurnsInAndOut() {
        browser.open("/#c=" + id);
        waitForText(browser, By.id("transcript"), "end of answer " + (TURNS - 1) + ".");
        waitForText(browser, By.id("connection"), "Live");
        assertThat(browser.driver.findElements(ANSWERS)).hasSize(10);
        assertThat(waitFor(browser, By.id("earlier-button")).isDisplayed()).isTrue();

        // A live turn: once its paragraph exists, a further delta changes that one text node and nothing else.
        log.append(id, List.of(event("turn.started", "{\"turnId\":\"live\",\"messageId\":\"m-live\"}")));
        log.append(id, List.of(event("text.delta", "{\"turnId\":\"live\",\"text\":\"first\"}")));
        waitForText(browser, By.id("transcript"), "first");
        browser.driver.executeScript("""
                window.__mutations = [];
                new MutationObserver((records) => records.forEach((r) => window.__mutations.push(
                    r.type + ':' + r.target.nodeName))).observe(document.getElementById('transcript'),
                    {subtree: true, childList: true, characterData: true, attributes: true});
                """);
        log.append(id, List.of(event("text.delta", "{\"turnId\":\"live\",\"text\":\" second\"}")));
        waitForText(browser, By.id("transcript"), "first second");
        @SuppressWarnings("unchecked")
        List<String> mutations = (List<String>) browser.driver.executeScript("return window.__mutations;");
        assertThat(mutations).containsExactly("characterData:#text");

        // Scrolling up brings in every earlier turn, a page at a time.
        browser.waitUpTo(PAGE.multipliedBy(4)).until(driver -> {
            browser.driver.executeScript("window.scrollTo(0, 0);");
            return !browser.driver.findElement(By.id("earlier-button")).isDisplayed();
        });
        assertThat(browser.driver.findElements(ANSWERS)).hasSize(TURNS + 1);
        assertThat(browser.driver.findElement(ANSWERS).getText()).contains("a19 end of answer 0.");
        browser.screenshot("long-conversation-top");

        // Back at the end, the earliest pages leave the DOM; scrolling up again brings them back.
        browser.waitUpTo(PAGE).until(driver -> {
            browser.driver.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);");
            return browser.driver.findElements(ANSWERS).size() < TURNS + 1;
        });
        assertThat(browser.driver.findElements(ANSWERS)).hasSizeLessThanOrEqualTo(51);
        assertThat(browser.driver.findElement(By.id("earlier-button")).isDisplayed())
                .isTrue();
        browser.waitUpTo(PAGE.multipliedBy(4)).until(driver -> {
            browser.driver.executeScript("window.scrollTo(0, 0);");
            return !browser.driver.findElement(By.id("earlier-button")).isDisplayed();
        });
        assertThat(browser.driver.findElement(ANSWERS).getText()).contains("end of answer 0.");
        assertThat(browser.driver
                        .findElement(By.cssSelector("#transcript li.user"))
                        .getText())
                .contains("Question 0");
        browser.assertNoConsoleErrors();
    }

    private static NewConversationEvent event(String type, String data) {
        return new NewConversationEvent(type, data, null);
    }
}
