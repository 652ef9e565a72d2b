package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.spring.boot.autoconfigure.app.RunningApp;
import dev.conch.test.EtcdExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What the Spring tests share: the analysis a failure analyzer gives a failed startup, office names
 * no other test uses, and an application started against a real etcd.
 */
public final class ConchTestSupport {

  private static final AtomicInteger offices = new AtomicInteger();

  private ConchTestSupport() {}

  /**
   * Runs {@code runner}, asserts that the context failed to start, and returns what {@code
   * analyzer} makes of the failure (asserted to be not null: the analyzer recognised it).
   */
  public static FailureAnalysis analyze(ApplicationContextRunner runner, FailureAnalyzer analyzer) {
    AtomicReference<FailureAnalysis> analysis = new AtomicReference<>();
    runner.run(context -> analysis.set(analyze(context, analyzer)));
    return analysis.get();
  }

  /**
   * Asserts that {@code context} failed to start and returns what {@code analyzer} makes of the
   * failure (asserted to be not null: the analyzer recognised it).
   */
  public static FailureAnalysis analyze(
      AssertableApplicationContext context, FailureAnalyzer analyzer) {
    assertThat(context).hasFailed();
    FailureAnalysis analysis = analyzer.analyze(context.getStartupFailure());
    assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
    return analysis;
  }

  /**
   * An office name no other test in this JVM uses, nor (very likely) an earlier run against the
   * same etcd: {@code <prefix>-<n>-<time>}.
   */
  public static String freshOffice(String prefix) {
    return prefix + "-" + offices.incrementAndGet() + "-" + System.nanoTime() % 100_000;
  }

  /**
   * Starts a {@link RunningApp} against {@code etcd} that campaigns for {@code office} as candidate
   * {@code id}, with more {@code properties} ({@code name=value}).
   */
  public static RunningApp app(EtcdExtension etcd, String office, String id, String... properties) {
    List<String> all = new ArrayList<>();
    all.add("conch.etcd.endpoints=" + etcd.cluster().endpoints());
    all.add("conch.office=" + office);
    all.add("conch.candidate.id=" + id);
    all.addAll(List.of(properties));
    return RunningApp.start(all.toArray(String[]::new));
  }
}
