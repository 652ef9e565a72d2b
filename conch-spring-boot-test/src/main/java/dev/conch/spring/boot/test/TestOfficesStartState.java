package dev.conch.spring.boot.test;

import dev.conch.spring.support.ConchLifecycle;
import dev.conch.spring.support.PhasedLifecycle;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Puts the offices in the start state before the context is ready: in the follower state the other
 * candidate leads each office before this instance campaigns (a phase before {@link
 * ConchLifecycle}'s), and the context's refresh returns only once every office is in the start
 * state (its acquire hooks ran, or it follows), so that a test's first line sees it.
 */
final class TestOfficesStartState extends PhasedLifecycle
    implements ApplicationListener<ContextRefreshedEvent> {

  private final TestOffices offices;

  TestOfficesStartState(TestOffices offices) {
    super(ConchLifecycle.PHASE - 1);
    this.offices = offices;
  }

  @Override
  protected void begin() {
    this.offices.electOthersFirst();
  }

  /** After every lifecycle bean started, so after this instance campaigns. */
  @Override
  public void onApplicationEvent(ContextRefreshedEvent event) {
    this.offices.awaitStartState();
  }
}
