package dev.conch.spring.boot.test;

import dev.conch.spring.support.ConchLifecycle;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Puts the offices in the start state before the context is ready: in the follower state the other
 * candidate leads each office before this instance campaigns (a phase before {@link
 * ConchLifecycle}'s), and the context's refresh returns only once every office is in the start
 * state (its acquire hooks ran, or it follows), so that a test's first line sees it.
 */
final class TestOfficesStartState
    implements SmartLifecycle, ApplicationListener<ContextRefreshedEvent> {

  private final TestOffices offices;

  private volatile boolean running;

  TestOfficesStartState(TestOffices offices) {
    this.offices = offices;
  }

  @Override
  public void start() {
    this.offices.electOthersFirst();
    this.running = true;
  }

  /** After every lifecycle bean started, so after this instance campaigns. */
  @Override
  public void onApplicationEvent(ContextRefreshedEvent event) {
    this.offices.awaitStartState();
  }

  @Override
  public void stop() {
    this.running = false;
  }

  @Override
  public boolean isRunning() {
    return this.running;
  }

  @Override
  public int getPhase() {
    return ConchLifecycle.PHASE - 1;
  }
}
