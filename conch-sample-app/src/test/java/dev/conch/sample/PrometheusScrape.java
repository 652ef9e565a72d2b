package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleApps.Elected;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sample app's {@code /actuator/prometheus} as Prometheus scrapes it, for {@link HandOverIT}
 * (whose instances and etcd outage it shares, rather than starting its own): the scrape passes
 * {@code promtool check metrics}, and each instance exports, per office, the meters that the alert
 * rules of the repository's {@code docs/prometheus} read, by the names they use; with etcd away,
 * the instance whose term ended sees the office leaderless for longer than its budget while none
 * reports leading, as the rule {@code ConchOfficeLeaderless} reads it.
 *
 * <p>promtool's lint finds fault with meters that are not conch's alert meters (the timers Boot's
 * observation handler makes have no help text; the JVM's {@code process_cpu_time_ns_total} names
 * its unit short): those are the application's and Boot's business, so the scrape must parse and
 * the alert meters must pass the lint, not every meter of the application. Without promtool
 * (Debian's prometheus package; bin/test installs it) the lint is left out and said so.
 */
final class PrometheusScrape {

  /** What Prometheus asks for: OpenMetrics first, then the text format. */
  private static final String PROMETHEUS_ACCEPT =
      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
          + "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

  /** The text format, the one {@code promtool check metrics} reads. */
  private static final String TEXT_FORMAT = "text/plain;version=0.0.4";

  /** promtool's exit code when the metrics parse and only its lint found fault. */
  private static final int LINT_PROBLEMS = 3;

  /** The series of the office that the rules read. */
  private static final List<String> RULES_READ =
      List.of(
          "conch_leader",
          "conch_office_leaderless_seconds",
          "conch_office_leaderless_observed_seconds_total",
          "conch_office_failover_budget_seconds");

  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)(?: \\S+)?$");

  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"");

  private PrometheusScrape() {}

  /**
   * With {@code elected} leading: every instance's scrape lints clean where the rules read it and
   * has the office's meters, {@code conch_leader} sums to 1, nobody saw the office leaderless, the
   * budget is the TTL plus etcd's expiry scan, and terms begun read 1 on the leader only.
   */
  static void assertSteady(SampleApps apps, Elected elected, Duration ttl) {
    boolean lint = promtoolInstalled();
    if (!lint) {
      System.out.println(
          "promtool is not installed (Debian's prometheus package; bin/test installs it): the"
              + " scrape is not linted");
    }
    double leaders = 0;
    for (SampleAppProcess app : apps.running()) {
      // The office's meters are registered with its first event: there by now, but not
      // necessarily scraped yet.
      List<Sample> samples =
          await("conch's meters in the scrape of " + app)
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(200))
              .until(() -> scrape(app, TEXT_FORMAT), PrometheusScrape::hasEveryRuleRead);
      if (lint) {
        Checked check = promtoolCheckMetrics(app.get("/actuator/prometheus", TEXT_FORMAT).body());
        assertThat(check.exit())
            .as("promtool check metrics on the scrape of %s: %s", app, check.problems())
            .isIn(0, LINT_PROBLEMS);
        assertThat(check.problems())
            .as("promtool's lint of the alert meters of %s", app)
            .noneMatch(PrometheusScrape::aboutAnAlertMeter);
      }
      boolean leads = app == elected.app();
      assertThat(value(samples, "conch_leader")).as("%s", app).isEqualTo(leads ? 1 : 0);
      leaders += value(samples, "conch_leader");
      // Someone leads, and nobody saw the office without a leader: the leader won it empty, the
      // others have followed it since.
      assertThat(value(samples, "conch_office_leaderless_seconds")).isZero();
      assertThat(value(samples, "conch_office_leaderless_observed_seconds_total")).isZero();
      // The TTL plus etcd's expiry scan of 500 ms.
      assertThat(value(samples, "conch_office_failover_budget_seconds"))
          .isEqualTo(ttl.plusMillis(500).toMillis() / 1000.0);
      // Terms begun, from 0 on the instances that have begun none.
      assertThat(
              samples.stream()
                  .filter(sample -> sample.name().equals("conch_transitions_total"))
                  .filter(sample -> "acquired".equals(sample.labels().get("conch_kind")))
                  .filter(PrometheusScrape::office)
                  .map(Sample::value)
                  .toList())
          .containsExactly(leads ? 1.0 : 0.0);

      // Prometheus itself is answered in OpenMetrics: the same series, by the same names.
      List<Sample> openMetrics = scrape(app, PROMETHEUS_ACCEPT);
      assertThat(openMetrics)
          .filteredOn(PrometheusScrape::office)
          .extracting(Sample::name)
          .containsAll(RULES_READ)
          .contains("conch_transitions_total");
    }
    assertThat(leaders).as("conch_leader summed over the office's instances").isEqualTo(1);
  }

  /**
   * With etcd away nobody can lead: the instance whose term ended counts the office leaderless,
   * past its budget, while no instance reports leading: what ConchOfficeLeaderless reads. The
   * others last saw a leader; the maximum over the instances is what counts.
   */
  static void awaitLeaderlessBeyondBudget(SampleApps apps) {
    await("the office seen leaderless for longer than its fail-over budget")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> apps.askAll(app -> scrape(app, TEXT_FORMAT)).values(),
            scrapes ->
                scrapes.stream().mapToDouble(s -> value(s, "conch_leader")).sum() == 0
                    && scrapes.stream()
                            .mapToDouble(s -> value(s, "conch_office_leaderless_seconds"))
                            .max()
                            .orElseThrow()
                        > value(scrapes.iterator().next(), "conch_office_failover_budget_seconds"));
  }

  /**
   * Once the office is led again no instance sees it leaderless, and {@code ended}, whose term
   * etcd's absence ended, keeps the vacancy it saw in its total: longer than the budget.
   */
  static void awaitLedAgain(SampleApps apps, SampleAppProcess ended) {
    await("no instance sees the office leaderless once it is led again")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> apps.askAll(app -> scrape(app, TEXT_FORMAT)).values(),
            scrapes ->
                scrapes.stream().allMatch(s -> value(s, "conch_office_leaderless_seconds") == 0));
    List<Sample> samples = scrape(ended, TEXT_FORMAT);
    assertThat(value(samples, "conch_office_leaderless_observed_seconds_total"))
        .as("the vacancy %s saw, in its total", ended)
        .isGreaterThan(value(samples, "conch_office_failover_budget_seconds"));
  }

  /** A lint line names its metric first: {@code conch_leader no help text}. */
  private static boolean aboutAnAlertMeter(String problem) {
    String metric = problem.split(" ", 2)[0];
    return RULES_READ.contains(metric) || metric.equals("conch_transitions_total");
  }

  private static boolean hasEveryRuleRead(List<Sample> samples) {
    return samples.stream()
        .filter(PrometheusScrape::office)
        .map(Sample::name)
        .toList()
        .containsAll(RULES_READ);
  }

  private static boolean office(Sample sample) {
    return SampleAppProcess.OFFICE.equals(sample.labels().get("conch_office"));
  }

  private static double value(List<Sample> samples, String name) {
    return samples.stream()
        .filter(sample -> sample.name().equals(name) && office(sample))
        .map(Sample::value)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " of the office in " + samples));
  }

  /** The samples of {@code app}'s {@code /actuator/prometheus}, asked for as {@code accept}. */
  private static List<Sample> scrape(SampleAppProcess app, String accept) {
    SampleAppProcess.Answer answer = app.get("/actuator/prometheus", accept);
    assertThat(answer.status()).as("GET /actuator/prometheus of %s", app).isEqualTo(200);
    List<Sample> samples = new ArrayList<>();
    for (String line : answer.body().lines().toList()) {
      Matcher sample = SAMPLE.matcher(line);
      if (line.startsWith("#") || !sample.matches()) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      Matcher label = LABEL.matcher((sample.group(2) != null) ? sample.group(2) : "");
      while (label.find()) {
        labels.put(label.group(1), label.group(2));
      }
      samples.add(new Sample(sample.group(1), labels, Double.parseDouble(sample.group(3))));
    }
    return samples;
  }

  private static boolean promtoolInstalled() {
    try {
      Process version =
          new ProcessBuilder("promtool", "--version").redirectErrorStream(true).start();
      version.getInputStream().transferTo(OutputStream.nullOutputStream());
      return version.waitFor(30, TimeUnit.SECONDS) && version.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** What {@code promtool check metrics} says of {@code scrape}, given on its standard input. */
  private static Checked promtoolCheckMetrics(String scrape) {
    try {
      Process promtool =
          new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
      CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> read(promtool));
      try (OutputStream in = promtool.getOutputStream()) {
        in.write(scrape.getBytes(StandardCharsets.UTF_8));
      }
      if (!promtool.waitFor(30, TimeUnit.SECONDS)) {
        promtool.destroyForcibly();
        throw new AssertionError("promtool check metrics did not end within 30 s");
      }
      String said = output.get(10, TimeUnit.SECONDS);
      return new Checked(
          promtool.exitValue(), said.lines().filter(line -> !line.isBlank()).toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String read(Process process) {
    try (InputStream out = process.getInputStream()) {
      return new String(out.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * What {@code promtool check metrics} said.
   *
   * @param exit its exit code: 0 all good, 1 the metrics do not parse, 3 lint problems only
   * @param problems its lines, one problem each
   */
  private record Checked(int exit, List<String> problems) {}

  /** One sample of a scrape: its series' name and labels, and its value. */
  private record Sample(String name, Map<String, String> labels, double value) {}
}
