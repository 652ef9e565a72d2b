package dev.conch.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for tests: {@code initdb} into a temp dir, {@code postgres} on a free
 * loopback port with its socket in that dir, user {@value #USER} with trust authentication, and
 * database {@value #DATABASE}. Never the system service, never a fixed port.
 *
 * <p>The binaries come from Debian's {@code postgresql} package ({@code
 * /usr/lib/postgresql/<version>/bin}, the newest installed), or from the directory in {@code
 * CONCH_PG_BIN}. PostgreSQL refuses to run as root: then the server runs as the system user {@code
 * postgres} (which the package creates), and the temp dir belongs to it.
 *
 * <p>By default the server trades durability for speed ({@code fsync}, {@code synchronous_commit}
 * and {@code full_page_writes} off); {@link Builder#setting(String, String)} sets any server
 * setting back. {@link #close()} stops it (fast shutdown) and deletes the dir.
 */
public final class PostgresServer extends DatabaseServer {

  /** The database user, a superuser: {@value}. */
  public static final String USER = "conch";

  /** The database the server is created with: {@value}. */
  public static final String DATABASE = "postgres";

  private static final String SYSTEM_USER = "postgres";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final Path bin;

  private PostgresServer(Path dir, Path bin, DatabaseProcess process) {
    super(dir, process, "INT", Duration.ofSeconds(10)); // SIGINT: fast shutdown, open sessions end
    this.bin = bin;
  }

  /** Starts a server with the default settings. */
  public static PostgresServer start() {
    return builder().start();
  }

  /** A builder for a server with other settings. */
  public static Builder builder() {
    return new Builder();
  }

  /** {@code jdbc:postgresql://127.0.0.1:<port>/postgres}; log in as {@link #USER}, no password. */
  @Override
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + DATABASE;
  }

  /** The directory of the server's binaries ({@code psql} and {@code postgres} live there). */
  public Path binDirectory() {
    return bin;
  }

  /**
   * {@code psql} (the one next to the server if it is there, else the one on the PATH), with the
   * arguments that connect it to this server.
   */
  public List<String> psqlCommand() {
    Path psql = bin.resolve("psql");
    return List.of(
        Files.isExecutable(psql) ? psql.toString() : "psql",
        "-h",
        "127.0.0.1",
        "-p",
        Integer.toString(port()),
        "-U",
        USER,
        "-d",
        DATABASE);
  }

  /** Server settings for a {@link PostgresServer}. */
  public static final class Builder {

    private final Map<String, String> settings = new LinkedHashMap<>();

    private Builder() {
      settings.put("fsync", "off");
      settings.put("synchronous_commit", "off");
      settings.put("full_page_writes", "off");
      settings.put("max_connections", "50");
    }

    /** Sets a server setting, as {@code postgres -c name=value} would. */
    public Builder setting(String name, String value) {
      settings.put(name, value);
      return this;
    }

    /**
     * Creates the cluster and starts the server.
     *
     * @throws IllegalStateException when the binaries are missing or the server does not come up,
     *     with the log's tail
     */
    public PostgresServer start() {
      Path bin = binaries();
      return DatabaseProcess.inTempDir(
          "conch-postgres-",
          "PostgreSQL",
          dir -> {
            if (DatabaseProcess.runningAsRoot()) {
              DatabaseProcess.chown(dir, SYSTEM_USER);
            }
            Path log = dir.resolve("postgres.log");
            DatabaseProcess.runSetup(
                "initdb",
                DatabaseProcess.asUser(
                    SYSTEM_USER,
                    List.of(
                        bin.resolve("initdb").toString(),
                        "-D",
                        dir.resolve("data").toString(),
                        "-U",
                        USER,
                        "--auth=trust",
                        "-E",
                        "UTF8",
                        "--locale=C",
                        "--no-sync",
                        "--no-instructions")),
                log,
                START_TIMEOUT);
            DatabaseProcess process =
                DatabaseProcess.startOnFreePort(
                    "postgres",
                    port -> DatabaseProcess.asUser(SYSTEM_USER, command(bin, dir, port)),
                    log,
                    "database system is ready to accept connections",
                    "could not bind",
                    START_TIMEOUT);
            return new PostgresServer(dir, bin, process);
          });
    }

    private List<String> command(Path bin, Path dir, int port) {
      List<String> command = new ArrayList<>();
      command.add(bin.resolve("postgres").toString());
      command.addAll(List.of("-D", dir.resolve("data").toString(), "-p", Integer.toString(port)));
      command.addAll(List.of("-k", dir.toString(), "-c", "listen_addresses=127.0.0.1"));
      settings.forEach((name, value) -> command.addAll(List.of("-c", name + "=" + value)));
      return command;
    }

    private static Path binaries() {
      String configured = System.getenv("CONCH_PG_BIN");
      if (configured != null && !configured.isBlank()) {
        Path bin = Paths.get(configured);
        if (!Files.isExecutable(bin.resolve("postgres"))) {
          throw new IllegalStateException(
              "CONCH_PG_BIN=" + configured + " holds no postgres binary; fix it or unset it");
        }
        return bin;
      }
      Path root = Paths.get("/usr/lib/postgresql");
      if (Files.isDirectory(root)) {
        try (Stream<Path> versions = Files.list(root)) {
          List<Path> found =
              versions
                  .map(version -> version.resolve("bin"))
                  .filter(bin -> Files.isExecutable(bin.resolve("postgres")))
                  .sorted(Comparator.comparing(PostgresServer.Builder::major).reversed())
                  .toList();
          if (!found.isEmpty()) {
            return found.get(0);
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Could not list " + root, e);
        }
      }
      throw new IllegalStateException(
          "No PostgreSQL server found under /usr/lib/postgresql (set CONCH_PG_BIN to the"
              + " directory of postgres and initdb). On Debian/Ubuntu install it with:"
              + " apt-get install postgresql");
    }

    private static int major(Path bin) {
      try {
        Path version = bin.getParent(); // bin is <root>/<major>/bin
        return version == null ? 0 : Integer.parseInt(version.getFileName().toString());
      } catch (NumberFormatException e) {
        return 0;
      }
    }
  }
}
