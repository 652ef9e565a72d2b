package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Leadership;
import dev.conch.State;
import dev.conch.spring.OnLeadership;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The start state holds on a test's first line, also when the acquire hook takes its time (it warms
 * a cache, say): the context is ready only once it ran.
 */
@SpringBootTest(
    properties = {"spring.application.name=catalog", "conch.candidate.id=me"},
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureTestOffices
@Timeout(60)
class TestOfficesStartStateTest {

  @Autowired TestOffices offices;

  @Autowired App app;

  @Test
  void instanceLeadsAndItsSlowAcquireHookRanWhenTheFirstLineRuns() {
    assertThat(this.offices.election("catalog").state()).isEqualTo(State.LEADING);
    long token = this.offices.election("catalog").token().orElseThrow();
    assertThat(this.app.warmed).containsExactly(token);
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {

    final List<Long> warmed = new CopyOnWriteArrayList<>();

    @OnLeadership
    void warmCache(Leadership leadership) throws InterruptedException {
      // Work an application does on winning; the test must not start before it is done.
      Thread.sleep(1000);
      this.warmed.add(leadership.token());
    }
  }
}
