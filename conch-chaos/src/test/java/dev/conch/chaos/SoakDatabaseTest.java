package dev.conch.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak's database check against a real PostgreSQL: the commands' write script passes the fence
 * with the newest token and is refused (psql exit 3) with an older one, and a row written around
 * the fence with a stale token is counted as a stale commit.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SoakDatabaseTest {

  @TempDir Path dir;

  @Test
  void aStaleWriteIsRefusedByTheFenceAndOneAroundItIsCounted() throws Exception {
    try (SoakDatabase database = SoakDatabase.start(dir)) {
      assertThat(write(database, 5)).isZero();
      assertThat(write(database, 7)).isZero();
      assertThat(write(database, 5)).as("psql's exit code for a stale token").isEqualTo(3);
      assertThat(database.writes(dir).staleCommits()).isZero();

      database.psql("INSERT INTO soak_write (token, candidate) VALUES (6, 9)"); // not fenced

      SoakDatabase.Writes writes = database.writes(dir);
      assertThat(writes.committed()).isEqualTo(3);
      assertThat(writes.staleCommits()).isEqualTo(1);
    }
  }

  /** Runs the commands' write script as a command with {@code token} would; its exit code. */
  private static int write(SoakDatabase database, long token) throws Exception {
    var environment = database.environment();
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    environment.get("CHAOS_PSQL"),
                    "-X",
                    "-q",
                    "-v",
                    "ON_ERROR_STOP=1",
                    "-v",
                    "token=" + token,
                    "-v",
                    "who=0",
                    "-f",
                    environment.get("CHAOS_SQL")))
            .redirectErrorStream(true)
            .redirectOutput(Files.createTempFile("psql", ".log").toFile());
    builder.environment().putAll(environment);
    Process process = builder.start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return process.exitValue();
  }
}
