package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.State;
import dev.conch.spring.OnLeadership;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

/** {@code @AutoConfigureTestOffices(leading = false)}: each test starts as a follower. */
@SpringBootTest(
    properties = {"spring.application.name=billing", "conch.candidate.id=me"},
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureTestOffices(leading = false)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(60)
class TestOfficesFollowerTest {

  @Autowired TestOffices offices;

  @Autowired App app;

  @Test
  @Order(1)
  void instanceFollowsWhenTheFirstLineRunsAndNeverLed() {
    assertThat(this.offices.election("billing").state()).isEqualTo(State.FOLLOWING);
    assertThat(this.offices.store().leader("billing").map(Holder::id))
        .contains(TestOffices.OTHER_CANDIDATE);
    assertThat(this.app.acquired).isEmpty();
    Leadership term = this.offices.grant("billing");
    assertThat(this.app.acquired).containsExactly(term.token());
  }

  @Test
  @Order(2)
  void afterALeadingTestTheNextFollowsAgain() {
    assertThat(this.offices.election("billing").state()).isEqualTo(State.FOLLOWING);
    assertThat(this.offices.store().leader("billing").map(Holder::id))
        .contains(TestOffices.OTHER_CANDIDATE);
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {

    final List<Long> acquired = new CopyOnWriteArrayList<>();

    @OnLeadership
    void acquired(Leadership leadership) {
      this.acquired.add(leadership.token());
    }
  }
}
