package app.talkide.controlplane.console;

import static app.talkide.controlplane.console.ConsoleBrowserSupport.PAGE;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.signIn;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitFor;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitForText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;

import app.talkide.controlplane.budget.Reservation;
import app.talkide.controlplane.budget.UsageRecord;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.UserBudgetSettings;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

/**
 * The budget bar after a turn ends. The gateway settles a call in the background once its answer has
 * been relayed, so the worker's {@code turn.completed} can reach the page before the reservation is
 * gone; the bar must still come to show what the API says, well before its 30-second refresh.
 */
@Tag("browser")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "talkide.gateway.api-key=")
class BudgetBarBrowserTest {

    static final Duration TURN = Duration.ofSeconds(60);
    static final By ANSWER = By.cssSelector("#transcript li.assistant");
    static final By SUMMARY = By.id("budget-summary");

    @LocalServerPort
    int port;

    @MockitoSpyBean
    UserBudgetService budgets;

    /** Holds every settlement until the test lets it through. */
    final CountDownLatch settlementsMayLand = new CountDownLatch(1);

    ChromiumBrowser browser;

    @BeforeEach
    void startBrowser() {
        doAnswer(call -> {
                    assertThat(settlementsMayLand.await(TURN.toSeconds(), TimeUnit.SECONDS))
                            .isTrue();
                    return call.callRealMethod();
                })
                .when(budgets)
                .postCallDebit(any(Reservation.class), any(UsageRecord.class));
        budgets.configure("dev", UserBudgetSettings.DEFAULTS);
        browser = new ChromiumBrowser("http://127.0.0.1:" + port);
        signIn(browser, "dev", "dev");
        waitForText(browser, SUMMARY, "spent");
    }

    @AfterEach
    void stopBrowser() {
        settlementsMayLand.countDown();
        browser.close();
    }

    @Test
    void aTurnThatEndsAfterAReloadMidStreamLeavesNothingReservedOnceSettled() {
        waitFor(browser, By.id("new-title")).sendKeys("Budget after a reload", Keys.ENTER);
        waitForText(browser, By.id("conversation-title"), "Budget after a reload");
        WebElement box = waitFor(browser, By.id("message-input"));
        box.sendKeys("Count my money [[sim:slow=200]]", Keys.ENTER);
        waitForText(browser, ANSWER, "Simulated reply to");

        browser.driver.navigate().refresh();
        WebElement answer = waitFor(browser, ANSWER);
        browser.waitUpTo(PAGE).until(driver -> {
            String text = summary();
            return text.contains("reserved") && !text.contains("$0.00 reserved");
        });
        assertThat(answer.getAttribute("data-state")).isEqualTo("running");

        browser.waitUpTo(TURN).until(ExpectedConditions.attributeToBe(answer, "data-state", "completed"));
        assertThat(budgets.status("dev").reservedMicros())
                .as("the settlement is still held back")
                .isPositive();
        settlementsMayLand.countDown();

        // Well under the bar's 30-second refresh: only the turn's end can have brought this.
        browser.waitUpTo(Duration.ofSeconds(12)).until(driver -> summary().contains("$0.00 reserved"));
        assertThat(budgets.status("dev").reservedMicros()).isZero();
        browser.assertNoConsoleErrors();
    }

    /** The bar's text; "" while the bar is being redrawn (its element replaced), so a wait tries again. */
    private String summary() {
        try {
            return browser.driver.findElement(SUMMARY).getText();
        } catch (org.openqa.selenium.StaleElementReferenceException redrawn) {
            return "";
        }
    }
}
