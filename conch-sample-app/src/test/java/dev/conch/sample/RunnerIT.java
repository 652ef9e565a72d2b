package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleApps.Elected;
import dev.conch.sample.SampleApps.HandOver;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The optional supervised child ({@code conch.runner.*}, profile {@code runner}): it runs on the
 * leader only, with the fencing token in its environment, and is stopped when the leader shuts
 * down, before the office passes on.
 */
class RunnerIT {

  @Test
  void childRunsOnlyOnTheLeaderWithItsTokenAndStopsWithIt() throws Exception {
    try (SampleApps apps = SampleApps.start("runner", 2, "--spring.profiles.active=runner")) {
      Elected first = apps.awaitOneLeader(SampleApps.START_TIMEOUT);
      long child = awaitChild(first);
      assertThat(ProcessHandle.of(child).filter(ProcessHandle::isAlive)).isPresent();
      for (SampleAppProcess other : apps.running()) {
        if (other != first.app()) {
          assertThat(other.log()).as("log of follower %s", other).doesNotContain("child ");
        }
      }

      HandOver handOver =
          apps.stopLeader(first, SampleAppProcess::terminate, Duration.ofSeconds(30));
      Figures.record(handOver.describe("graceful with a supervised child (SIGTERM, ttl 15s)"));
      assertThat(first.app().log()).contains("child " + child + " stopped");
      assertThat(ProcessHandle.of(child).filter(ProcessHandle::isAlive)).isEmpty();
      awaitChild(handOver.to());
    }
  }

  /** The pid of the child that {@code leader} started with its token. */
  private static long awaitChild(Elected leader) {
    Pattern started =
        Pattern.compile("child (\\d+) of reports started with token " + leader.token() + "\\b");
    return await("child of " + leader.app())
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              Matcher matcher = started.matcher(leader.app().log());
              return matcher.find()
                  ? Optional.of(Long.parseLong(matcher.group(1)))
                  : Optional.<Long>empty();
            },
            Optional::isPresent)
        .orElseThrow();
  }
}
