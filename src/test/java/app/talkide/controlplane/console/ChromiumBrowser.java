package app.talkide.controlplane.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through its chromium-driver, pointed at explicitly so that Selenium
 * never tries to download a browser or driver. Missing packages fail the test with what to install:
 * browser tests are part of the suite and must never be skipped silently.
 */
final class ChromiumBrowser implements AutoCloseable {

    static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private static final List<Path> BROWSERS =
            List.of(Path.of("/usr/bin/chromium"), Path.of("/usr/bin/chromium-browser"));
    private static final List<Path> DRIVERS =
            List.of(Path.of("/usr/bin/chromedriver"), Path.of("/usr/lib/chromium/chromedriver"));

    final ChromeDriver driver;
    private final String baseUrl;

    ChromiumBrowser(String baseUrl) {
        this.baseUrl = baseUrl;
        Path browser = installed(BROWSERS, "chromium");
        Path driverBinary = installed(DRIVERS, "chromium-driver");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-dev-shm-usage",
                "--window-size=1280,900");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driverBinary.toFile())
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    private static Path installed(List<Path> candidates, String debianPackage) {
        return candidates.stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("The browser tests need Debian's " + debianPackage
                        + " (looked for " + candidates + "). Install it: apt-get install -y chromium chromium-driver"
                        + " (scripts/test.sh does this when it is missing)."));
    }

    void open(String path) {
        driver.get(baseUrl + path);
    }

    WebDriverWait waitUpTo(Duration timeout) {
        return new WebDriverWait(driver, timeout, Duration.ofMillis(50));
    }

    /** Saves what the browser shows as {@code target/screenshots/NAME.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Errors the page logged since the last call (script errors, failed loads, CSP violations). */
    List<String> consoleErrors() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .toList();
    }

    void assertNoConsoleErrors() {
        assertThat(consoleErrors()).as("errors in the browser console").isEmpty();
    }

    @Override
    public void close() {
        driver.quit();
    }
}
