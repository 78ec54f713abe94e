package app.talkide.controlplane.console;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.TestHttp;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** How the console is served: pages behind sign-in, assets open, confining headers, the CSRF cookie. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConsolePagesTest {

    @LocalServerPort
    int port;

    @Test
    void consolePagesSendAnAnonymousVisitorToSignIn() {
        TestHttp http = new TestHttp(port);
        for (String page : new String[] {"/", "/index.html", "/admin", "/admin.html"}) {
            TestHttp.Response response = http.get(page);
            assertThat(response.status()).as(page).isEqualTo(302);
            assertThat(response.header("Location")).as(page).endsWith("/login");
        }
    }

    @Test
    void theSignInPageIsServedWithAConfiningPolicyAndTheCsrfCookie() {
        TestHttp.Response login = new TestHttp(port).get("/login");

        assertThat(login.status()).isEqualTo(200);
        assertThat(login.body()).contains("<form id=\"login-form\"");
        assertThat(login.header("Content-Security-Policy"))
                .contains("default-src 'self'")
                .contains("script-src 'self'")
                .contains("frame-ancestors 'none'")
                .doesNotContain("unsafe-inline");
        assertThat(login.header("X-Frame-Options")).isEqualTo("DENY");
        assertThat(login.header("Set-Cookie")).startsWith("XSRF-TOKEN=");
    }

    @Test
    void scriptsAndStylesLoadWithoutSigningIn() {
        TestHttp http = new TestHttp(port);
        for (String asset : new String[] {"/js/console.js", "/js/admin.js", "/js/login.js", "/css/console.css"}) {
            assertThat(http.get(asset).status()).as(asset).isEqualTo(200);
        }
    }

    @Test
    void signedInUsersLearnTheirNameAndWhetherTheyAreAdministrators() {
        TestHttp.Response session =
                new TestHttp(port).get("/api/console/session", "Authorization", TestHttp.basic("dev", "dev"));

        assertThat(session.status()).isEqualTo(200);
        assertThat(session.json().get("userId").asString()).isEqualTo("dev");
        assertThat(session.json().get("admin").asBoolean()).isTrue();
        assertThat(new TestHttp(port).get("/api/console/session").status()).isEqualTo(401);
    }

    @Test
    void noScriptOfTheConsoleWritesHtmlFromStrings() throws Exception {
        // Everything shown is built as text nodes (dom.js): a message or title can never become markup.
        for (String script : new String[] {
            "admin.js",
            "api.js",
            "budget.js",
            "console.js",
            "conversation.js",
            "dom.js",
            "login.js",
            "session.js",
            "transcript.js",
            "words.js"
        }) {
            String source = new TestHttp(port).get("/js/" + script).body();
            assertThat(source)
                    .as(script)
                    .doesNotContain("innerHTML")
                    .doesNotContain("outerHTML")
                    .doesNotContain("insertAdjacentHTML")
                    .doesNotContain("document.write");
        }
    }
}
