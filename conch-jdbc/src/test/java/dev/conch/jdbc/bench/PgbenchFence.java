package dev.conch.jdbc.bench;

import dev.conch.jdbc.JdbcFence;
import dev.conch.test.PostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fence's statements under {@code pgbench}, against the same PostgreSQL: three scripts in
 * {@code src/test/resources/bench/} run in alternating rounds, {@code bare.sql} (UPDATE, COMMIT),
 * {@code floor.sql} ({@code SELECT 1} first) and {@code fenced.sql} (the fence's steady-state
 * statements first). The fence's statements are recorded from {@link JdbcFence#check} on a real
 * connection when this runs (office {@code bench}, token 42, parameters written in as literals) and
 * put between the script's {@code fence:begin} and {@code fence:end} lines: the code is the one
 * place they come from.
 *
 * <p>Arguments: {@code [seconds per round, whole, default 3] [rounds, default 3] [modes, default
 * durable,fast]}. Prints the pgbench command, tps of each script (pgbench's "without initial
 * connection time") and the ratios, from 1 and 8 clients.
 */
public final class PgbenchFence {

  private static final long TOKEN = 42;
  private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial");
  private static final List<String> SCRIPTS = List.of("bare", "floor", "fenced");

  private PgbenchFence() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<String> modes = List.of((args.length > 2 ? args[2] : "durable,fast").split(","));
    Path dir = Files.createTempDirectory("conch-pgbench-");
    try {
      for (String mode : modes) {
        try (BenchDatabase db = BenchDatabase.start("postgresql", mode.equals("durable"), TOKEN)) {
          List<String> fence = fenceStatements(db, TOKEN);
          for (String script : SCRIPTS) {
            String text = resource(script);
            if (script.equals("fenced")) {
              text = withFence(text, fence);
            }
            Files.writeString(dir.resolve(script + ".sql"), text, StandardCharsets.UTF_8);
          }
          System.out.printf(
              Locale.ROOT,
              "pgbench fence, %s, %s, %d rounds of %d s per script, load %s%n",
              db.describe(),
              db.version(),
              rounds,
              seconds,
              Load.now());
          for (String statement : fence) {
            System.out.println("  fence statement (recorded from JdbcFence.check): " + statement);
          }
          System.out.println(
              "  command: " + String.join(" ", command(db.postgres(), dir, "fenced", 8, seconds)));
          for (int clients : new int[] {1, 8}) {
            double[] sums = new double[SCRIPTS.size()];
            StringBuilder perRound = new StringBuilder();
            for (String script : SCRIPTS) {
              pgbench(db.postgres(), dir, script, clients, 1); // warm-up
            }
            for (int round = 0; round < rounds; round++) {
              double[] tps = new double[SCRIPTS.size()];
              for (int i = 0; i < SCRIPTS.size(); i++) {
                int s = (i + round) % SCRIPTS.size();
                tps[s] = pgbench(db.postgres(), dir, SCRIPTS.get(s), clients, seconds);
                sums[s] += tps[s];
              }
              perRound.append(
                  String.format(Locale.ROOT, " %.2f/%.2f", tps[2] / tps[1], tps[2] / tps[0]));
            }
            for (int s = 0; s < SCRIPTS.size(); s++) {
              System.out.printf(
                  Locale.ROOT,
                  "  %d clients, %-6s %8.0f tps (mean of rounds)%n",
                  clients,
                  SCRIPTS.get(s),
                  sums[s] / rounds);
            }
            System.out.printf(
                Locale.ROOT,
                "  %d clients, fenced / floor %.2f, fenced / bare %.2f, floor / bare %.2f"
                    + " (per round, fenced/floor / fenced/bare:%s)%n",
                clients,
                sums[2] / sums[1],
                sums[2] / sums[0],
                sums[1] / sums[0],
                perRound);
          }
        }
      }
    } finally {
      try (var files = Files.list(dir)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  /** What {@link JdbcFence#check} executes in the steady state, recorded on a real connection. */
  static List<String> fenceStatements(BenchDatabase db, long token) throws Exception {
    RecordingConnection recorder = new RecordingConnection();
    try (Connection real = db.connect()) {
      Connection c = recorder.wrap(real);
      c.setAutoCommit(false);
      JdbcFence.create().check(c, BenchDatabase.OFFICE, token, "bench");
      c.rollback();
    }
    return recorder.executed();
  }

  private static String withFence(String script, List<String> fence) {
    int begin = script.indexOf("-- fence:begin\n");
    int end = script.indexOf("-- fence:end\n");
    if (begin < 0 || end < begin) {
      throw new IllegalStateException("fenced.sql has no fence:begin / fence:end lines");
    }
    StringBuilder statements = new StringBuilder();
    for (String statement : fence) {
      statements.append(statement.strip()).append(";\n");
    }
    return script.substring(0, begin + "-- fence:begin\n".length())
        + statements
        + script.substring(end);
  }

  private static String resource(String script) throws IOException {
    try (InputStream in =
        Objects.requireNonNull(
            PgbenchFence.class.getResourceAsStream("/bench/" + script + ".sql"),
            "bench/" + script + ".sql on the class path")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<String> command(
      PostgresServer server, Path dir, String script, int clients, int seconds) {
    Path beside = server.binDirectory().resolve("pgbench");
    List<String> command = new ArrayList<>();
    command.add(Files.isExecutable(beside) ? beside.toString() : "pgbench");
    command.addAll(
        List.of(
            "-n",
            "-M",
            "prepared",
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(server.port()),
            "-U",
            PostgresServer.USER,
            "-f",
            dir.resolve(script + ".sql").toString(),
            "-c",
            Integer.toString(clients),
            "-j",
            Integer.toString(Math.min(clients, 2)),
            "-T",
            Integer.toString(seconds),
            PostgresServer.DATABASE));
    return command;
  }

  /** Runs pgbench once; its tps without the initial connection time. */
  private static double pgbench(
      PostgresServer server, Path dir, String script, int clients, int seconds) throws Exception {
    Process process =
        new ProcessBuilder(command(server, dir, script, clients, seconds))
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = process.waitFor();
    Matcher tps = TPS.matcher(output);
    if (exit != 0 || !tps.find()) {
      throw new IllegalStateException("pgbench failed (exit " + exit + "):\n" + output);
    }
    return Double.parseDouble(tps.group(1));
  }
}
