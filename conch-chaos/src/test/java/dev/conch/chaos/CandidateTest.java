package dev.conch.chaos;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.test.EtcdCluster;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A supervisor of the soak that cannot start: the soak must still clean up and say why. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CandidateTest {

  @TempDir Path dir;

  @Test
  void aSupervisorThatCouldNotStartClosesWithoutHidingWhy() throws Exception {
    Path missing = dir.resolve("no-such-conch");
    SoakOptions options =
        new SoakOptions(
            1,
            1,
            Duration.ofSeconds(1),
            Duration.ofSeconds(3),
            Duration.ofMillis(500),
            42,
            SoakOptions.allFaults(1),
            missing,
            0,
            dir.resolve("no-sample-app.jar"));
    try (EtcdCluster cluster = EtcdCluster.start(1)) {
      Candidate candidate = new Candidate(0, cluster, options, dir, "test-run", Map.of());

      assertThatThrownBy(candidate::start)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining(missing.toString());
      // The soak closes every candidate in a finally block: a close that threw here (it did, a
      // NullPointerException on the missing process) replaced the start failure above.
      assertThatCode(candidate::close).doesNotThrowAnyException();
    }
  }
}
