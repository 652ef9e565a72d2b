package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void highestDrawsGrowByThreeUpToTheCap() {
    Backoff backoff =
        new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), (low, high) -> high);
    List<Long> seconds = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      seconds.add(backoff.next().toSeconds());
    }
    assertThat(seconds).containsExactly(3L, 9L, 27L, 30L, 30L, 30L);
    backoff.reset();
    assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void lowestDrawsStayAtTheInitialDelay() {
    Backoff backoff =
        new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), (low, high) -> low);
    assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void realDrawsStayWithinBounds() {
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2));
    for (int i = 0; i < 1000; i++) {
      assertThat(backoff.next()).isBetween(Duration.ofMillis(100), Duration.ofSeconds(2));
    }
  }
}
