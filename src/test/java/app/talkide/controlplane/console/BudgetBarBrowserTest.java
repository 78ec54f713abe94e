package app.talkide.controlplane.console;

import static app.talkide.controlplane.console.ConsoleBrowserSupport.PAGE;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.signIn;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitFor;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitForText;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The budget bar after a turn ends, on a page reloaded while the turn ran: the turn's end (not the bar's
 * 30-second refresh) brings the bar to what the API says, including a replica's budget lease given back
 * after its idle time.
 */
@Tag("browser")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "talkide.gateway.api-key=")
class BudgetBarBrowserTest {

    static final Duration TURN = Duration.ofSeconds(60);
    static final By ANSWER = By.cssSelector("#transcript li.assistant");
    static final By SUMMARY = By.id("budget-summary");

    @LocalServerPort
    int port;

    @Autowired
    UserBudgetService budgets;

    ChromiumBrowser browser;

    @BeforeEach
    void startBrowser() {
        budgets.configure("dev", UserBudgetSettings.DEFAULTS);
        browser = new ChromiumBrowser("http://127.0.0.1:" + port);
        signIn(browser, "dev", "dev");
        waitForText(browser, SUMMARY, "spent");
    }

    @AfterEach
    void stopBrowser() {
        browser.close();
    }

    @Test
    void aTurnThatEndsAfterAReloadMidStreamLeavesNothingReservedOnceSettled() {
        browser.waitUpTo(PAGE).until(ExpectedConditions.elementToBeClickable(By.id("create-button")));
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
