package app.talkide.controlplane.console;

import static app.talkide.controlplane.console.ConsoleBrowserSupport.PAGE;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitFor;
import static app.talkide.controlplane.console.ConsoleBrowserSupport.waitForText;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The console used with the keyboard alone: every key goes to whatever has the focus (no element is
 * clicked or typed into directly), and every stop on the way must show where the focus is.
 */
@Tag("browser")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "talkide.gateway.api-key=")
class ConsoleKeyboardBrowserTest {

    static final TenantEnvironmentId SECOND = TenantEnvironmentId.of("demo", "keyboard");
    static final Duration TURN = Duration.ofSeconds(60);
    static final int MOST_TAB_STOPS = 60;

    @LocalServerPort
    int port;

    @Autowired
    TenantEnvironments tenantEnvironments;

    @Autowired
    Memberships memberships;

    @Autowired
    UserBudgetService budgets;

    ChromiumBrowser browser;

    @BeforeEach
    void startBrowser() {
        // A second tenant-environment, so that choosing one is a choice.
        tenantEnvironments.register(SECOND);
        memberships.grant(SECOND, "dev");
        browser = new ChromiumBrowser("http://127.0.0.1:" + port);
    }

    @AfterEach
    void stopBrowser() {
        browser.close();
        budgets.configure("dev", UserBudgetSettings.DEFAULTS);
    }

    @Test
    void signInChooseCreateSendStopAndReachTheAdminPageWithTheKeyboardAlone() {
        browser.open("/");
        browser.waitUpTo(PAGE).until(ExpectedConditions.urlContains("/login"));
        awaitFocusOn(By.id("username"));
        type("dev");
        tabTo(By.id("password"));
        type("dev");
        tabTo(By.id("sign-in"));
        press(Keys.ENTER);

        waitForText(browser, By.id("budget-summary"), "spent");
        waitFor(browser, By.id("admin-link"));
        browser.waitUpTo(PAGE)
                .until(driver -> new Select(driver.findElement(By.id("tenant-env")))
                                .getOptions()
                                .size()
                        == 2);
        tabTo(By.id("skip-link"));
        tabTo(By.id("admin-link"));
        tabTo(By.id("sign-out"));
        tabTo(By.id("tenant-env"));
        press(Keys.ARROW_DOWN);
        assertThat(new Select(browser.driver.findElement(By.id("tenant-env")))
                        .getFirstSelectedOption()
                        .getAttribute("value"))
                .isEqualTo("demo/keyboard");
        tabTo(By.id("new-title"));
        type("Keyboard only");
        tabTo(By.id("create-button"));
        press(Keys.SPACE);

        waitForText(browser, By.id("conversation-title"), "Keyboard only");
        assertThat(browser.driver
                        .findElement(By.cssSelector(".conversation-head"))
                        .getText())
                .contains("demo/keyboard");
        awaitFocusOn(By.id("message-input"));
        browser.screenshot("keyboard-conversation");
        type("Tell me a very long story [[sim:slow=2000]]");
        press(Keys.ENTER);

        WebElement answer = waitFor(browser, By.cssSelector("#transcript li.assistant"));
        browser.waitUpTo(PAGE).until(ExpectedConditions.elementToBeClickable(By.id("interrupt-button")));
        assertFocusShownOn(By.id("message-input"));
        tabTo(By.id("interrupt-button"));
        browser.screenshot("keyboard-stop-answer");
        press(Keys.ENTER);
        browser.waitUpTo(TURN).until(ExpectedConditions.attributeToBe(answer, "data-state", "failed"));
        assertThat(answer.getText()).contains("Stopped.");
        assertThat(focused())
                .as("the focus goes back to the message box, not lost with the disabled button")
                .isEqualTo(browser.driver.findElement(By.id("message-input")));

        // Back up the page to the skip link, which leads back to the message box and keeps the conversation
        // in the address; then up to the admin link. Every stop on the way shows the focus.
        String address = browser.driver.getCurrentUrl();
        shiftTabUntil(By.id("skip-link"));
        press(Keys.ENTER);
        awaitFocusOn(By.id("message-input"));
        assertThat(browser.driver.getCurrentUrl()).isEqualTo(address);
        shiftTabUntil(By.id("admin-link"));
        press(Keys.ENTER);

        browser.waitUpTo(PAGE).until(ExpectedConditions.urlContains("/admin"));
        waitForText(browser, By.id("tenant-envs"), "demo/keyboard");
        waitFor(browser, By.id("limit-dev"));
        int stops = 0;
        do {
            tab();
            assertFocusShown();
            assertThat(++stops).as("tab stops before the limit field").isLessThan(MOST_TAB_STOPS);
        } while (!"limit-dev".equals(focused().getAttribute("id")));
        new Actions(browser.driver)
                .keyDown(Keys.CONTROL)
                .sendKeys("a")
                .keyUp(Keys.CONTROL)
                .perform();
        type("7");
        tabTo(By.cssSelector("tr[data-user='dev'] .save-limit"));
        press(Keys.ENTER);
        waitForText(browser, By.id("budget-message"), "Saved: dev may spend $7.00 this period.");
        assertThat(budgets.status("dev").limitMicros()).isEqualTo(7_000_000);
        browser.screenshot("keyboard-admin");
        browser.assertNoConsoleErrors();
    }

    /** Tab once, and the focus must land, visibly, on {@code target}. */
    private void tabTo(By target) {
        tab();
        assertFocusShownOn(target);
    }

    private void tab() {
        press(Keys.TAB);
    }

    private void shiftTabUntil(By what) {
        WebElement target = browser.driver.findElement(what);
        int stops = 0;
        do {
            shiftTab();
            assertFocusShown();
            assertThat(++stops).as("tab stops before " + what).isLessThan(MOST_TAB_STOPS);
        } while (!focused().equals(target));
    }

    private void shiftTab() {
        new Actions(browser.driver)
                .keyDown(Keys.SHIFT)
                .sendKeys(Keys.TAB)
                .keyUp(Keys.SHIFT)
                .perform();
    }

    private void press(Keys key) {
        new Actions(browser.driver).sendKeys(key).perform();
    }

    /** Types into whatever has the focus. */
    private void type(String text) {
        new Actions(browser.driver).sendKeys(text).perform();
    }

    private WebElement focused() {
        return browser.driver.switchTo().activeElement();
    }

    private void awaitFocusOn(By what) {
        browser.waitUpTo(PAGE).until(driver -> focused().equals(driver.findElement(what)));
        assertFocusShown();
    }

    private void assertFocusShownOn(By what) {
        assertThat(focused()).as("focus on " + what).isEqualTo(browser.driver.findElement(what));
        assertFocusShown();
    }

    /** The focused element matches :focus-visible, has an outline a person can see, and is on screen. */
    private void assertFocusShown() {
        @SuppressWarnings("unchecked")
        Map<String, Object> focus = (Map<String, Object>) browser.driver.executeScript("""
                const e = document.activeElement;
                const style = getComputedStyle(e);
                const r = e.getBoundingClientRect();
                return {
                  what: e.tagName + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : ''),
                  focusVisible: e !== document.body && e.matches(':focus-visible'),
                  outline: style.outlineStyle + ' ' + style.outlineWidth,
                  outlineWidth: parseFloat(style.outlineWidth) || 0,
                  onScreen: r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0
                    && r.left < innerWidth && r.top < innerHeight
                };""");
        String what = String.valueOf(focus.get("what"));
        assertThat(focus.get("focusVisible")).as("focus visible on " + what).isEqualTo(true);
        assertThat(((Number) focus.get("outlineWidth")).doubleValue())
                .as("outline of " + what + ": " + focus.get("outline"))
                .isGreaterThanOrEqualTo(2);
        assertThat(focus.get("onScreen")).as(what + " on screen").isEqualTo(true);
    }
}
