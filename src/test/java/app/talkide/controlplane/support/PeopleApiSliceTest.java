package app.talkide.controlplane.support;

import app.talkide.controlplane.system.PeopleSecuritySlice;
import app.talkide.controlplane.token.identity.IdentityTokens;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

/**
 * A {@code @WebMvcTest} of browser or admin controllers behind the people's security chain, as the
 * application runs them (local mode: sessions, HTTP Basic, CSRF). The slice keeps every
 * {@code WebMvcConfigurer}, so the mint endpoint's argument resolver comes too: its identity tokens are a mock.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@WebMvcTest
@Import(PeopleSecuritySlice.class)
@MockitoBean(types = IdentityTokens.class)
public @interface PeopleApiSliceTest {

    /** The controllers under test. */
    @AliasFor(annotation = WebMvcTest.class, attribute = "controllers")
    Class<?>[] value() default {};
}
