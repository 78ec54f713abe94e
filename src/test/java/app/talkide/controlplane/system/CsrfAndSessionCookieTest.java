package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import java.net.http.HttpRequest;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Local mode's session cookie and the CSRF rule: only a script authenticating itself skips the token. */
@DatabaseTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CsrfAndSessionCookieTest {

    @LocalServerPort
    int port;

    TestHttp http;
    String xsrf;
    String session;
    String sessionCookieHeader;

    @BeforeEach
    void signIn() {
        http = new TestHttp(port);
        xsrf = cookie(http.get("/login").raw().headers().allValues("Set-Cookie"), "XSRF-TOKEN");
        TestHttp.Response login = http.send(http.request("/login")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", "XSRF-TOKEN=" + xsrf)
                .POST(HttpRequest.BodyPublishers.ofString("username=dev&password=dev&_csrf=" + xsrf))
                .build());
        List<String> setCookies = login.raw().headers().allValues("Set-Cookie");
        sessionCookieHeader = setCookies.stream()
                .filter(value -> value.startsWith("JSESSIONID="))
                .findFirst()
                .orElseThrow();
        session = cookie(setCookies, "JSESSIONID");
        // Signing in replaces the CSRF token; the next page load brings the new one, as in the console.
        xsrf = cookie(
                http.get("/login", "Cookie", "JSESSIONID=" + session)
                        .raw()
                        .headers()
                        .allValues("Set-Cookie"),
                "XSRF-TOKEN");
    }

    @Test
    void sessionCookieIsHttpOnlyAndSameSiteLax() {
        assertThat(sessionCookieHeader).containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Lax");
    }

    @Test
    void aJunkBearerHeaderNextToTheSessionCookieDoesNotSkipCsrf() {
        TestHttp.Response forged = http.send(http.request("/api/conversations")
                .header("Cookie", "JSESSIONID=" + session)
                .header("Authorization", "Bearer junk")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{oops"))
                .build());
        assertThat(forged.status()).isEqualTo(403);

        TestHttp.Response withToken = http.send(http.request("/api/conversations")
                .header("Cookie", "JSESSIONID=" + session + "; XSRF-TOKEN=" + xsrf)
                .header("X-XSRF-TOKEN", xsrf)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{oops"))
                .build());
        assertThat(withToken.status()).isEqualTo(400);
    }

    @Test
    void aScriptWithBasicAndNoSessionNeedsNoCsrfToken() {
        TestHttp.Response script =
                http.postJson("/api/conversations", "{oops", "Authorization", TestHttp.basic("dev", "dev"));
        assertThat(script.status()).isEqualTo(400);
    }

    private static String cookie(List<String> setCookies, String name) {
        return setCookies.stream()
                .filter(value -> value.startsWith(name + "="))
                .map(value -> value.substring(
                        name.length() + 1, value.indexOf(';') > 0 ? value.indexOf(';') : value.length()))
                .findFirst()
                .orElse(null);
    }
}
