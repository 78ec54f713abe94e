package app.talkide.controlplane.conversation.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The application the conversation API tests run against over real HTTP, one context for all of them (Spring
 * caches it): the people they sign in as, quick redelivery to the embedded worker, and compaction only when a
 * test calls it. Each test works in tenant-environments and conversations of its own, so the classes do not see
 * each other's rows; {@code lister} is used by one test only, so the conversations it lists are its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.auth.local-users[0].username=alice",
            "talkide.auth.local-users[0].password-hash={noop}alice-pw",
            "talkide.auth.local-users[1].username=bob",
            "talkide.auth.local-users[1].password-hash={noop}bob-pw",
            "talkide.auth.local-users[2].username=carol",
            "talkide.auth.local-users[2].password-hash={noop}carol-pw",
            "talkide.auth.local-users[3].username=lister",
            "talkide.auth.local-users[3].password-hash={noop}lister-pw",
            "talkide.worker.delivery.initial-backoff=50ms",
            "talkide.worker.delivery.max-backoff=500ms",
            "talkide.conversations.compaction.enabled=false",
            "talkide.conversations.compaction.after=0s"
        })
@interface ConversationApiContext {}
