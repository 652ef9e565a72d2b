package dev.conch.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A real MariaDB server for tests: {@code mariadb-install-db} into a temp dir, {@code mariadbd} on
 * a free loopback port with its socket in that dir, user {@value #USER} without a password, and an
 * empty database {@value #DATABASE}. Never the system service, never a fixed port.
 *
 * <p>The binaries come from Debian's {@code mariadb-server} package ({@code mariadbd} and {@code
 * mariadb-install-db} on the PATH or in {@code /usr/sbin}, {@code /usr/bin}), or from {@code
 * CONCH_MARIADBD} and {@code CONCH_MARIADB_INSTALL_DB}. No option file is read ({@code
 * --no-defaults}), so the machine's configuration never leaks in. As root, the server runs as root
 * ({@code --user=root}).
 *
 * <p>By default the server trades durability for speed (the InnoDB log is flushed once a second, no
 * binary log); {@link Builder#option(String, String)} sets any server option back. {@link #close()}
 * stops it and deletes the dir.
 */
public final class MariaDbServer extends DatabaseServer {

  /** The database user, with every privilege: {@value}. */
  public static final String USER = "root";

  /** The empty database created at start: {@value}. */
  public static final String DATABASE = "conch";

  /**
   * How often a test may ask InnoDB's lock tables ({@code information_schema.INNODB_TRX} and its
   * kin) and still see a lock wait that began since it last looked: InnoDB answers them from a
   * cache it refills only after 100 ms without a read ({@code CACHE_MIN_IDLE_TIME_US} in
   * trx0i_s.cc), so a probe every 10 ms never sees a wait that began after its first look.
   */
  public static final Duration LOCK_PROBE_INTERVAL = Duration.ofMillis(200);

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private MariaDbServer(Path dir, DatabaseProcess process) {
    super(dir, process, "TERM", Duration.ofSeconds(20)); // SIGTERM: a clean shutdown
  }

  /** Starts a server with the default options. */
  public static MariaDbServer start() {
    return builder().start();
  }

  /** A builder for a server with other options. */
  public static Builder builder() {
    return new Builder();
  }

  /** {@code jdbc:mariadb://127.0.0.1:<port>/conch}; log in as {@link #USER}, no password. */
  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port() + "/" + DATABASE;
  }

  /** Server options for a {@link MariaDbServer}. */
  public static final class Builder {

    private final Map<String, String> options = new LinkedHashMap<>();

    private Builder() {
      options.put("innodb-flush-log-at-trx-commit", "0");
      options.put("innodb-buffer-pool-size", "64M");
      options.put("innodb-log-file-size", "16M");
      options.put("skip-log-bin", null);
      options.put("skip-name-resolve", null);
    }

    /**
     * Sets a server option, as {@code mariadbd --name=value} would; a null value passes no value.
     */
    public Builder option(String name, String value) {
      options.put(name, value);
      return this;
    }

    /**
     * Creates the data directory and starts the server.
     *
     * @throws IllegalStateException when the binaries are missing or the server does not come up,
     *     with the log's tail
     */
    public MariaDbServer start() {
      // Debian puts the server in /usr/sbin, which a user's PATH may lack.
      Path sbin = Path.of("/usr/sbin/mariadbd");
      Path server =
          System.getenv("CONCH_MARIADBD") == null && Files.isExecutable(sbin)
              ? sbin
              : Processes.binary("CONCH_MARIADBD", "mariadbd", "mariadb-server");
      Path install =
          Processes.binary("CONCH_MARIADB_INSTALL_DB", "mariadb-install-db", "mariadb-server");
      return DatabaseProcess.inTempDir(
          "conch-mariadb-",
          "MariaDB",
          dir -> {
            Path log = dir.resolve("mariadb.log");
            List<String> setup = new ArrayList<>();
            setup.add(install.toString());
            setup.add("--no-defaults");
            setup.add("--datadir=" + dir.resolve("data"));
            // Its own temp dir, as the server's: a bootstrap deletes every #sql* file it finds in
            // its temp dir, so two installs sharing /tmp (two test JVMs) failed now and then on
            // "Error on delete of '/tmp/#sql-temptable-...'".
            setup.add("--tmpdir=" + dir);
            setup.add("--auth-root-authentication-method=normal");
            setup.add("--skip-test-db");
            if (DatabaseProcess.runningAsRoot()) {
              setup.add("--user=root");
            }
            DatabaseProcess.runSetup("mariadb-install-db", setup, log, START_TIMEOUT);
            Path init = dir.resolve("init.sql");
            try {
              Files.writeString(
                  init,
                  "CREATE DATABASE IF NOT EXISTS " + DATABASE + ";\n",
                  StandardCharsets.UTF_8);
            } catch (IOException e) {
              throw new UncheckedIOException("Could not write MariaDB's init file in " + dir, e);
            }
            DatabaseProcess process =
                DatabaseProcess.startOnFreePort(
                    "mariadbd",
                    port -> command(server, dir, init, port),
                    log,
                    "ready for connections",
                    "Bind on TCP/IP port",
                    START_TIMEOUT);
            return new MariaDbServer(dir, process);
          });
    }

    private List<String> command(Path server, Path dir, Path init, int port) {
      List<String> command = new ArrayList<>();
      command.add(server.toString());
      command.add("--no-defaults");
      command.add("--datadir=" + dir.resolve("data"));
      command.add("--port=" + port);
      command.add("--bind-address=127.0.0.1");
      command.add("--socket=" + dir.resolve("mariadb.sock"));
      command.add("--pid-file=" + dir.resolve("mariadb.pid"));
      command.add("--tmpdir=" + dir);
      command.add("--init-file=" + init);
      if (DatabaseProcess.runningAsRoot()) {
        command.add("--user=root");
      }
      options.forEach(
          (name, value) -> command.add("--" + name + (value == null ? "" : "=" + value)));
      return command;
    }
  }
}
