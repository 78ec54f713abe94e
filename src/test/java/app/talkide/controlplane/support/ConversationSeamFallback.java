package app.talkide.controlplane.support;

import app.talkide.controlplane.conversation.MessageOutbox;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * While the conversation feature has no outbox of its own (it is built on another branch),
 * applications started by tests get the in-memory stand-in, so the worker side can be tested
 * against the interfaces. Registered (test classpath only) for every {@code SpringApplication}; it adds a
 * bean only for a type nothing else implements, so once the real implementations exist it adds nothing.
 */
public class ConversationSeamFallback implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        if (context.getBeanFactory() instanceof BeanDefinitionRegistry registry) {
            // As a bean, the registrar runs after component scanning has registered the application's beans.
            registry.registerBeanDefinition("conversationSeamFallback", new RootBeanDefinition(Registrar.class));
        }
    }

    static final class Registrar implements BeanDefinitionRegistryPostProcessor {

        @Override
        public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
            ListableBeanFactory beans = (ListableBeanFactory) registry;
            if (beans.getBeanNamesForType(MessageOutbox.class, true, false).length == 0) {
                registry.registerBeanDefinition(
                        "inMemoryMessageOutbox", new RootBeanDefinition(InMemoryMessageOutbox.class));
            }
        }
    }
}
