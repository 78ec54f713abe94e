package app.talkide.controlplane.console;

import static app.talkide.controlplane.console.ConsoleBrowserSupport.signIn;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitFor;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitForText;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UserBudgetService;
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

/** Signing in, the budget bar and the admin page, in headless Chromium against the application in local mode. */
@Tag("browser")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "talkide.gateway.api-key=")
class ConsoleSignInAndAdminBrowserTest {

    @LocalServerPort
    int port;

    @Autowired
    UserBudgetService budgets;

    ChromiumBrowser browser;

    @BeforeEach
    void startBrowser() {
        browser = new ChromiumBrowser("http://127.0.0.1:" + port);
    }

    @AfterEach
    void stopBrowser() {
        browser.close();
    }

    @Test
    void aWrongPasswordIsSaidPlainlyAndTheRightOneOpensTheConsoleWithTheBudgetBar() {
        signIn(browser, "dev", "not-the-password");
        waitForText(browser, By.id("login-message"), "Wrong user name or password");
        browser.screenshot("login-failed");

        WebElement name = browser.driver.findElement(By.id("username"));
        name.clear();
        name.sendKeys("dev");
        browser.driver.findElement(By.id("password")).sendKeys("dev", Keys.ENTER);

        waitForText(browser, By.id("budget-summary"), "spent");
        assertThat(browser.driver.findElement(By.id("budget-summary")).getText())
                .matches("\\$\\d+\\.\\d+ spent, \\$\\d+\\.\\d+ reserved of \\$\\d+\\.\\d+");
        assertThat(browser.driver.findElement(By.id("budget")).getText()).contains("The period ends");
        waitForText(browser, By.id("user-name"), "dev");
        assertThat(browser.driver.findElement(By.id("admin-link")).isDisplayed())
                .isTrue();
        browser.assertNoConsoleErrors();
    }

    @Test
    void theAdminPageShowsTenantEnvironmentsAndSetsAUsersLimit() {
        signIn(browser, "dev", "dev");
        waitForText(browser, By.id("budget-summary"), "spent");
        browser.driver.findElement(By.id("admin-link")).click();

        waitForText(browser, By.id("tenant-envs"), "demo/dev");
        // Local mode requires no cut-over verification: demo/dev is offered and has never been verified.
        waitForText(browser, By.id("builds-gates"), "never verified");
        waitForText(browser, By.id("builds-gates"), "No builds.");
        assertThat(browser.driver.findElement(By.id("builds-gates")).getText())
                .contains("offered")
                .doesNotContain("not offered");
        WebElement limit = waitFor(browser, By.id("limit-dev"));
        limit.clear();
        limit.sendKeys("0.25", Keys.ENTER);
        waitForText(browser, By.id("budget-message"), "Saved: dev may spend $0.25 this period.");
        browser.screenshot("admin");

        assertThat(budgets.status("dev").limitMicros()).isEqualTo(250_000);
        browser.driver.findElement(By.linkText("Console")).click();
        waitForText(browser, By.id("budget-summary"), "of $0.25");
        browser.waitUpTo(ConsoleBrowserSupport.PAGE).until(ExpectedConditions.titleContains("TalkIDE"));
        browser.assertNoConsoleErrors();
    }
}
