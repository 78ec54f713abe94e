package app.talkide.controlplane.provisioning.desired;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * The application the desired-state admin API tests run against over real HTTP, one context for all of them
 * (Spring caches it): an admin {@code root}, a plain user {@code alice}, a control-plane namespace to refuse,
 * and the desired-state changes announced so far. Each test works on tenant names of its own, so the classes
 * do not see each other's rows or announcements. Other features' admin API tests (budgets) share it too.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.auth.local-users[0].username=root",
            "talkide.auth.local-users[0].password-hash={noop}root-pw",
            "talkide.auth.local-users[0].roles=USER,ADMIN",
            "talkide.auth.local-users[1].username=alice",
            "talkide.auth.local-users[1].password-hash={noop}alice-pw",
            "talkide.auth.local-users[1].roles=USER",
            "talkide.provisioning.control-plane-namespace=talkide-prod"
        })
@Import(DesiredStateEvents.class)
public @interface AdminApiContext {}
