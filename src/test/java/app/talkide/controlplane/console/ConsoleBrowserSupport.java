package app.talkide.controlplane.console;

import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/** Steps a person takes in the console, shared by the browser tests. */
final class ConsoleBrowserSupport {

    static final Duration PAGE = Duration.ofSeconds(15);

    private ConsoleBrowserSupport() {}

    /** Opens the console, which sends an anonymous visitor to sign in, and signs in with the keyboard. */
    static void signIn(ChromiumBrowser browser, String user, String password) {
        browser.open("/");
        browser.waitUpTo(PAGE).until(ExpectedConditions.urlContains("/login"));
        WebElement name = browser.waitUpTo(PAGE).until(ExpectedConditions.elementToBeClickable(By.id("username")));
        name.sendKeys(user);
        browser.driver.findElement(By.id("password")).sendKeys(password, Keys.ENTER);
    }

    static WebElement waitFor(ChromiumBrowser browser, By what) {
        return browser.waitUpTo(PAGE).until(ExpectedConditions.visibilityOfElementLocated(what));
    }

    static void waitForText(ChromiumBrowser browser, By what, String text) {
        browser.waitUpTo(PAGE).until(ExpectedConditions.textToBePresentInElementLocated(what, text));
    }
}
