package dev.conch.spring.boot.test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Puts the {@link TestOffices} of a test's context back in the start state after each test method,
 * as Spring's {@code MockitoResetTestExecutionListener} resets mocks: the tests that share a cached
 * context do not share what the previous one scripted.
 *
 * <p>Ordered after the standard listeners (so before them after a test: the context is still open
 * when {@code @DirtiesContext} closes it afterwards); a context that was not loaded is not loaded,
 * and a {@code TestOffices} bean not yet made is not made.
 */
final class ResetTestOfficesTestExecutionListener extends AbstractTestExecutionListener {

  /** The order of this listener: {@code Ordered.LOWEST_PRECEDENCE - 100}, as Mockito's reset. */
  static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  @Override
  public int getOrder() {
    return ORDER;
  }

  @Override
  public void afterTestMethod(TestContext testContext) {
    if (testContext.hasApplicationContext()) {
      reset(testContext.getApplicationContext());
    }
  }

  private static void reset(ApplicationContext context) {
    if (context instanceof ConfigurableApplicationContext configurable && configurable.isActive()) {
      ConfigurableListableBeanFactory beanFactory = configurable.getBeanFactory();
      Set<String> made = new HashSet<>(Arrays.asList(beanFactory.getSingletonNames()));
      for (String name : beanFactory.getBeanNamesForType(TestOffices.class, false, false)) {
        if (made.contains(name)) {
          beanFactory.getBean(name, TestOffices.class).reset();
        }
      }
    }
    if (context.getParent() != null) {
      reset(context.getParent());
    }
  }
}
