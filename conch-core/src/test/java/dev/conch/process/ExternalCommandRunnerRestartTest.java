package dev.conch.process;

import static dev.conch.process.Runners.WAIT;
import static dev.conch.process.Runners.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Backoff;
import dev.conch.local.LocalOffices;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongBinaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Restart mode on the in-memory election: run again after exits and losses, with back-off. */
class ExternalCommandRunnerRestartTest {

  private static final String OFFICE = "jobs";

  @TempDir Path dir;
  private final LocalOffices offices = new LocalOffices();
  private final List<Duration> delays = new CopyOnWriteArrayList<>();
  private Runners runners;

  @BeforeEach
  void runners() {
    runners = new Runners(dir);
  }

  @AfterEach
  void close() {
    runners.close();
  }

  @Test
  void lossRunsTheCommandAgainWithAHigherToken() throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            runners
                .builder(OFFICE, offices::election)
                .restart(true)
                .backoffObserver(delays::add)
                .command(sh("echo $CONCH_REV >> \"$T/revs\"; exec sleep 1000"))
                .onLose("echo lost >> \"$T/marks\""));
    await().atMost(WAIT).until(() -> runners.lines("revs").size() == 1);

    offices.expire(OFFICE);

    await().atMost(WAIT).until(() -> runners.lines("revs").size() == 2);
    List<String> revs = runners.lines("revs");
    assertThat(Long.parseLong(revs.get(1))).isGreaterThan(Long.parseLong(revs.get(0)));
    assertThat(runners.lines("marks")).containsExactly("lost");
    assertThat(delays).as("a loss campaigns again at once, without the back-off").isEmpty();
    assertThat(runner.awaitExit(Duration.ZERO)).isEmpty();

    runner.stop();
    assertThat(runner.awaitExit(Duration.ZERO)).hasValue(ExitCodes.STOPPED);
  }

  @Test
  void exitsBackOffWithDecorrelatedJitterAndTheBackOffResetsAfterALongLife() throws Exception {
    AtomicLong now = new AtomicLong();
    LongBinaryOperator highest = (low, high) -> high;
    // The fourth run lasts until the test lets it go, after moving the ticker past the reset.
    String script =
        "n=$(cat \"$T/count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$T/count\";"
            + " if [ $n -eq 4 ]; then while [ ! -e \"$T/go\" ]; do sleep 0.05; done; fi";
    ExternalCommandRunner runner =
        runners.start(
            runners
                .builder(OFFICE, offices::election)
                .restart(true)
                .ticker(now::get)
                .random(highest)
                .backoff(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(60))
                .backoffObserver(delays::add)
                .command(sh(script)));
    await().atMost(WAIT).until(() -> runners.lines("count").equals(List.of("4")));
    await().atMost(WAIT).until(() -> runner.childPid().isPresent());

    now.addAndGet(Duration.ofSeconds(61).toNanos());
    runners.touch("go");

    await().atMost(WAIT).until(() -> delays.size() >= 4);
    Backoff expected = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), highest);
    Duration first = expected.next();
    Duration second = expected.next();
    Duration third = expected.next();
    expected.reset();
    Duration afterReset = expected.next();
    // A copy: the runner goes on restarting, and a view of the live list breaks when it grows.
    List<Duration> seen = List.copyOf(delays).subList(0, 4);
    assertThat(seen).containsExactly(first, second, third, afterReset);
    assertThat(seen)
        .containsExactly(
            Duration.ofMillis(300),
            Duration.ofMillis(900),
            Duration.ofSeconds(1),
            Duration.ofMillis(300));
    // Restart mode never ends on its own.
    assertThat(runner.awaitExit(Duration.ZERO)).isEmpty();
  }

  @Test
  void failingOnAcquireHookWithRestartBacksOffLikeAnExit() throws Exception {
    runners.start(
        runners
            .builder(OFFICE, offices::election)
            .restart(true)
            .random((low, high) -> high)
            .backoff(Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofSeconds(60))
            .backoffObserver(delays::add)
            .onAcquire("echo hook >> \"$T/marks\"; exit 7")
            .command(sh("echo started >> \"$T/marks\"; exec sleep 1000")));

    await().atMost(WAIT).until(() -> delays.size() >= 3);
    assertThat(List.copyOf(delays).subList(0, 3))
        .containsExactly(Duration.ofMillis(40), Duration.ofMillis(40), Duration.ofMillis(40));
    assertThat(runners.lines("marks")).doesNotContain("started");
  }
}
