package app.talkide.controlplane.console;

import static app.talkide.controlplane.console.ConsoleBrowserSupport.PAGE;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.signIn;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitFor;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitForText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.local.runtime.LocalWorkerRuntime;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The whole product as a newcomer meets it: headless Chromium against the application in local mode, its
 * embedded reference worker and the built-in Anthropic simulator (whose markers make answers slow, call a
 * tool or fail). Screenshots of the main screens go to {@code target/screenshots/}.
 */
@Tag("browser")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "talkide.gateway.api-key=")
class ConversationBrowserTest {

    static final Duration TURN = Duration.ofSeconds(60);
    static final By ANSWER = By.cssSelector("#transcript li.assistant");

    @LocalServerPort
    int port;

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @Autowired
    UserBudgetService budgets;

    @Autowired
    LocalWorkerRuntime workers;

    ChromiumBrowser browser;

    @BeforeEach
    void startBrowser() {
        budgets.configure("dev", UserBudgetSettings.DEFAULTS);
        browser = new ChromiumBrowser("http://127.0.0.1:" + port);
        signIn(browser, "dev", "dev");
        waitForText(browser, By.id("budget-summary"), "spent");
    }

    @AfterEach
    void stopBrowser() {
        browser.close();
        budgets.configure("dev", UserBudgetSettings.DEFAULTS);
    }

    @Test
    void anAnswerStreamsInBeforeItsTurnCompletesAndComesBackAfterAReload() {
        createConversation("Streaming in the browser");
        send("Hello Mara, how are you? [[sim:slow=250]]");

        WebElement answer = waitFor(browser, ANSWER);
        waitForText(browser, ANSWER, "Simulated reply to");
        String early = answerText(answer);
        assertThat(answer.getAttribute("data-state")).isEqualTo("running");
        browser.screenshot("conversation-streaming");
        browser.waitUpTo(PAGE).until(driver -> answerText(answer).length() > early.length());
        assertThat(answer.getAttribute("data-state"))
                .as("more text arrived while the turn was still running")
                .isEqualTo("running");

        awaitTurnEnd(answer, "completed");
        String whole = answerText(answer);
        assertThat(whole).startsWith("Simulated reply to “Hello Mara, how are you?”.");
        browser.screenshot("conversation");

        browser.driver.navigate().refresh();
        waitForText(browser, By.id("transcript"), "Hello Mara, how are you?");
        WebElement reloaded = waitFor(browser, ANSWER);
        awaitTurnEnd(reloaded, "completed");
        assertThat(answerText(reloaded)).isEqualTo(whole);
        assertThat(browser.driver.findElements(ANSWER)).hasSize(1);
        assertThat(browser.driver.findElements(By.cssSelector("#transcript li.user")))
                .hasSize(1);
        waitForText(browser, By.id("connection"), "Live");
        browser.assertNoConsoleErrors();
    }

    @Test
    void aReloadInTheMiddleOfAnAnswerResumesTheStreamWithoutLosingOrRepeatingText() {
        String message = "Resume me after a reload [[sim:slow=200]]";
        createConversation("Undisturbed");
        send(message);
        WebElement undisturbed = waitFor(browser, ANSWER);
        awaitTurnEnd(undisturbed, "completed");
        String expected = answerText(undisturbed);

        createConversation("Reloaded mid-answer");
        send(message);
        WebElement answer = waitFor(browser, ANSWER);
        waitForText(browser, ANSWER, "Simulated reply to");
        assertThat(answer.getAttribute("data-state")).isEqualTo("running");
        browser.driver.navigate().refresh();

        WebElement resumed = waitFor(browser, ANSWER);
        awaitTurnEnd(resumed, "completed");
        // The simulator answers a message the same way every time: the resumed answer must be that answer.
        assertThat(answerText(resumed)).isEqualTo(expected);
        assertThat(browser.driver.findElements(ANSWER)).hasSize(1);

        browser.driver.manage().window().setSize(new Dimension(400, 860));
        Number overflow = (Number) browser.driver.executeScript(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
        assertThat(overflow.intValue())
                .as("no sideways scrolling on a narrow window")
                .isLessThanOrEqualTo(0);
        browser.screenshot("conversation-narrow");
        browser.assertNoConsoleErrors();
    }

    @Test
    void aNetworkLossMidAnswerIsRidden() {
        try (FlakyNetwork network = new FlakyNetwork(port)) {
            // The session cookie belongs to the host, so the signed-in browser goes through the relay as it is.
            browser.driver.get("http://127.0.0.1:" + network.port() + "/");
            createConversation("Network loss");
            send("Keep going while I am offline [[sim:slow=300]]");
            WebElement answer = waitFor(browser, ANSWER);
            waitForText(browser, ANSWER, "Simulated reply to");

            network.cut();
            waitForText(browser, By.id("connection"), "Connection lost");
            browser.screenshot("conversation-connection-lost");
            network.restore();

            awaitTurnEnd(answer, "completed");
            waitForText(browser, By.id("connection"), "Live");
            String live = answerText(answer);
            browser.driver.navigate().refresh();
            WebElement fromHistory = waitFor(browser, ANSWER);
            awaitTurnEnd(fromHistory, "completed");
            assertThat(live)
                    .as("what the resumed stream showed is what the event log holds")
                    .isEqualTo(answerText(fromHistory));
            // The browser itself reports the dropped connections; the page must add nothing of its own.
            assertThat(browser.consoleErrors()).allMatch(error -> error.contains("net::ERR_"));
        }
    }

    @Test
    void toolCallsAreShownApartFromTheAnswer() {
        String markup = "<img src=x onerror=\"document.title='injected'\">";
        createConversation("Tools " + markup);
        send("What time is it? " + markup + " [[sim:tool_use]]");

        WebElement tool = waitFor(browser, By.cssSelector("#transcript .tool"));
        browser.waitUpTo(TURN).until(ExpectedConditions.attributeToBe(tool, "data-state", "done"));
        assertThat(tool.findElement(By.className("tool-name")).getText()).isEqualTo("current_time");
        awaitTurnEnd(browser.driver.findElement(ANSWER), "completed");
        assertThat(answerText(browser.driver.findElement(ANSWER))).contains("The current_time tool returned");
        // Titles and messages are shown as the text they are, never run as markup.
        assertThat(browser.driver.findElement(By.id("conversation-title")).getText())
                .isEqualTo("Tools " + markup);
        assertThat(browser.driver
                        .findElement(By.cssSelector("#transcript li.user"))
                        .getText())
                .contains(markup);
        assertThat(browser.driver.findElements(By.cssSelector("#transcript img, #conversations img")))
                .isEmpty();
        assertThat(browser.driver.getTitle()).isEqualTo("TalkIDE console");
        browser.screenshot("conversation-tool");
        browser.assertNoConsoleErrors();
    }

    @Test
    void spendingTheBudgetDownIsSaidPlainlyAndRaisingItOnTheAdminPageLetsTheNextMessageThrough() {
        // What is left: $0.07. Before an answer starts the gateway reserves its input and one 4,096-token
        // output slice at Sonnet's $15 per million (about $0.062), so the first answer fits. It then really
        // costs its input and 600 output tokens ($0.009), and what is left no longer covers the reservation
        // of the next answer, whose input also carries the first one.
        // Earlier tests' calls leave this replica a budget lease for dev, shown as reserved until the lease,
        // idle, is given back (after two seconds): on a fast machine this test starts before that.
        await().atMost(Duration.ofSeconds(30)).until(() -> budgets.status("dev").reservedMicros() == 0);
        long spentBefore = budgets.status("dev").spentMicros();
        budgets.configure("dev", new UserBudgetSettings(spentBefore + 70_000, null, null, null, null));
        browser.driver.navigate().refresh();
        waitForText(browser, By.id("budget"), "$0.07 left.");
        String conversation = createConversation("Budget");

        send("Tell me everything at length [[sim:length=600]]");
        WebElement first = waitFor(browser, ANSWER);
        awaitTurnEnd(first, "completed");
        assertThat(first.getText()).contains("600 out");
        await().atMost(PAGE)
                .untilAsserted(() -> assertThat(budgets.status("dev").spentMicros() - spentBefore)
                        .as("what the first answer really cost")
                        .isGreaterThanOrEqualTo(600 * 15));

        send("Will this be answered?");
        browser.waitUpTo(TURN).until(driver -> driver.findElements(ANSWER).size() == 2);
        WebElement denied = browser.driver.findElements(ANSWER).get(1);
        awaitTurnEnd(denied, "failed");
        assertThat(denied.getText())
                .contains("Your budget for this period is spent.")
                .contains("less than an answer may cost");
        browser.waitUpTo(PAGE)
                .until(driver -> !driver.findElement(By.id("budget")).getText().contains("$0.07 left."));
        browser.screenshot("budget-denied");

        browser.driver.findElement(By.id("admin-link")).click();
        WebElement limit = waitFor(browser, By.id("limit-dev"));
        limit.clear();
        limit.sendKeys("5", Keys.ENTER);
        waitForText(browser, By.id("budget-message"), "Saved: dev may spend $5.00 this period.");
        waitForText(browser, By.id("tenant-envs"), "ready");
        waitForText(browser, By.id("issues"), "No issues reported.");

        browser.open("/#c=" + conversation);
        waitForText(browser, By.id("transcript"), "Your budget for this period is spent.");
        send("And now?");
        browser.waitUpTo(TURN).until(driver -> driver.findElements(ANSWER).size() == 3);
        WebElement answered = browser.driver.findElements(ANSWER).get(2);
        awaitTurnEnd(answered, "completed");
        assertThat(answerText(answered)).startsWith("Simulated reply to “And now?”.");

        browser.open("/admin");
        waitForText(browser, By.id("usage"), "claude-");
        browser.screenshot("admin");
        browser.assertNoConsoleErrors();
    }

    @Test
    void aWorkerThatCannotBeReachedIsSaidPlainlyAndTheWaitingMessageIsAnsweredWhenItIsBack() {
        createConversation("Worker away");
        send("Are you there?");
        awaitTurnEnd(waitFor(browser, ANSWER), "completed");

        // A crash the runtime has not noticed yet: the worker is gone but its address is still handed out,
        // as a pod's Service routes to it until its readiness probe fails.
        workers.start(DEMO).orElseThrow().stop();
        try {
            send("Still there?");
            waitForText(browser, By.id("worker-banner"), "Mara’s workspace cannot be reached right now.");
            assertThat(browser.driver
                            .findElements(By.cssSelector("#transcript li.user"))
                            .get(1)
                            .getText())
                    .contains("Waiting for Mara…");
            assertThat(browser.driver.findElements(ANSWER)).hasSize(1);
            browser.screenshot("conversation-worker-unreachable");
        } finally {
            workers.stopWorker(DEMO);
            workers.start(DEMO);
        }

        browser.waitUpTo(TURN).until(driver -> driver.findElements(ANSWER).size() == 2);
        WebElement answer = browser.driver.findElements(ANSWER).get(1);
        awaitTurnEnd(answer, "completed");
        assertThat(answerText(answer)).startsWith("Simulated reply to “Still there?”.");
        browser.waitUpTo(PAGE).until(ExpectedConditions.invisibilityOfElementLocated(By.id("worker-banner")));
        browser.assertNoConsoleErrors();
    }

    @Test
    void aSlowTurnStopsWhenInterrupted() {
        createConversation("Interrupt");
        send("Tell me a very long story [[sim:slow=2000]]");

        WebElement answer = waitFor(browser, ANSWER);
        WebElement stop =
                browser.waitUpTo(PAGE).until(ExpectedConditions.elementToBeClickable(By.id("interrupt-button")));
        stop.click();

        awaitTurnEnd(answer, "failed");
        assertThat(answer.getText()).contains("Stopped.");
        browser.waitUpTo(PAGE).until(ExpectedConditions.attributeToBe(By.id("interrupt-button"), "disabled", "true"));
        browser.screenshot("conversation-interrupted");
        browser.assertNoConsoleErrors();
    }

    @Test
    void anOverloadedModelIsSaidPlainly() {
        createConversation("Overloaded");
        send("Are you busy? [[sim:overloaded]]");

        WebElement answer = waitFor(browser, ANSWER);
        awaitTurnEnd(answer, "failed");
        assertThat(answer.getText()).contains("The AI model is overloaded right now.");
        browser.assertNoConsoleErrors();
    }

    /** Creates a conversation from the sidebar with the keyboard; answers its id. */
    private String createConversation(String title) {
        // As a user sees it: the form takes a title once the page knows where to create it.
        browser.waitUpTo(PAGE).until(ExpectedConditions.elementToBeClickable(By.id("create-button")));
        WebElement input = waitFor(browser, By.id("new-title"));
        input.sendKeys(title, Keys.ENTER);
        waitForText(browser, By.id("conversation-title"), title);
        browser.waitUpTo(PAGE).until(ExpectedConditions.urlContains("#c="));
        String url = browser.driver.getCurrentUrl();
        return url.substring(url.indexOf("#c=") + 3);
    }

    private void send(String text) {
        WebElement box = waitFor(browser, By.id("message-input"));
        box.sendKeys(text);
        box.sendKeys(Keys.ENTER);
        waitForText(browser, By.id("transcript"), text.replaceAll("\\s*\\[\\[sim:[^]]*]]", ""));
    }

    private void awaitTurnEnd(WebElement answer, String state) {
        browser.waitUpTo(TURN)
                .until(driver -> List.of("completed", "failed").contains(answer.getAttribute("data-state")));
        assertThat(answer.getAttribute("data-state")).as(answer.getText()).isEqualTo(state);
    }

    private static String answerText(WebElement answer) {
        return answer.findElements(By.className("answer-text")).stream()
                .map(WebElement::getText)
                .reduce("", String::concat);
    }
}
