package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conch.local.LocalOffices;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The warnings about a hook name the handler by what it says it is (its {@code toString}, which the
 * Spring layer makes "@OnLeadership(ACQUIRED) Jobs.start()") and say whether its start or its stop
 * went wrong: a handler that began work on acquire is stopped on loss, and that stop is not a "lose
 * hook" of its own.
 */
@Timeout(60)
class HookLogTest {

  private final LocalOffices offices = new LocalOffices();

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  private final Logger logger = (Logger) LoggerFactory.getLogger(FencedElection.class);

  @BeforeEach
  void capture() {
    this.logged.start();
    this.logger.addAppender(this.logged);
  }

  @AfterEach
  void release() {
    this.logger.detachAppender(this.logged);
  }

  @Test
  void aFailedStartNamesTheHandler() {
    try (Election election = this.offices.election(ElectionOptions.forOffice("billing"))) {
      election.addHandler(
          new NamedHandler() {
            @Override
            public void acquired(Leadership leadership) {
              throw new IllegalStateException("no ledger");
            }
          });
      election.start();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(warnings())
                      .contains(
                          "office billing: the start of @OnLeadership(ACQUIRED) Jobs.start()"
                              + " failed; stepping down"));
    }
  }

  @Test
  void aStopThatOverrunsItsTimeoutNamesTheHandler() throws InterruptedException {
    try (Election election =
        this.offices.election(
            ElectionOptions.builder("billing").hookTimeout(Duration.ofMillis(300)).build())) {
      election.addHandler(
          new NamedHandler() {
            @Override
            public void lost(Leadership leadership, LossReason reason) throws InterruptedException {
              Thread.sleep(60_000); // interrupted at the hook timeout
            }
          });
      election.start();
      assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
      this.offices.revoke("billing");
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(warnings())
                      .anySatisfy(
                          line ->
                              assertThat(line)
                                  .startsWith(
                                      "office billing: the stop of @OnLeadership(ACQUIRED)"
                                          + " Jobs.start() timed out after 300ms")));
    }
    assertThat(warnings()).noneSatisfy(line -> assertThat(line).contains("lose hook"));
  }

  private List<String> warnings() {
    List<ILoggingEvent> events;
    synchronized (this.logged) { // the appender appends under its own lock, from hook threads
      events = List.copyOf(this.logged.list);
    }
    return events.stream()
        .filter(event -> event.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  /** A handler named as the Spring layer names an acquire method. */
  private abstract static class NamedHandler implements LeadershipHandler {

    @Override
    public String toString() {
      return "@OnLeadership(ACQUIRED) Jobs.start()";
    }
  }
}
