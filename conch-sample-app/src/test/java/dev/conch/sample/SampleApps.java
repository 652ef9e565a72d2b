package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleAppProcess.Leader;
import dev.conch.test.EtcdCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A real single-member etcd and several sample-app processes campaigning through it for the office
 * {@code reports}, each on free loopback ports. Closing it kills every process and etcd.
 */
final class SampleApps implements AutoCloseable {

  /** How long the instances may take to start: several JVMs share two cores with other builds. */
  static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final EtcdCluster etcd;

  private final List<SampleAppProcess> apps = new ArrayList<>();

  private SampleApps(EtcdCluster etcd) {
    this.etcd = etcd;
  }

  /**
   * Starts etcd and {@code count} instances named {@code <name>-1..n}, each with {@code args}, and
   * waits until all of them serve HTTP.
   */
  static SampleApps start(String name, int count, String... args) {
    return start(name, count, List.of(), args);
  }

  /**
   * Starts etcd and {@code count} instances named {@code <name>-1..n}, each JVM with {@code
   * jvmArgs} and each application with {@code args}, and waits until all of them serve HTTP.
   */
  static SampleApps start(String name, int count, List<String> jvmArgs, String... args) {
    SampleApps apps = new SampleApps(EtcdCluster.start(1));
    try {
      Path jar = Path.of(System.getProperty("conch.sample.jar", "target/conch-sample-app.jar"));
      Path logs = Path.of("target", "e2e-logs", name);
      Set<Integer> ports = freePorts(count);
      int i = 1;
      for (int port : ports) {
        apps.apps.add(
            SampleAppProcess.start(
                jar, logs, name + "-" + i++, port, apps.etcd.endpoints(), jvmArgs, List.of(args)));
      }
      for (SampleAppProcess app : apps.apps) {
        await("start of " + app)
            .atMost(START_TIMEOUT)
            .pollInterval(Duration.ofMillis(200))
            .failFast(
                "exit of " + app,
                () -> assertThat(app.isAlive()).as(() -> "alive? log:\n" + app.logTail()).isTrue())
            .until(app::isUp);
      }
      return apps;
    } catch (RuntimeException | Error e) {
      apps.close();
      throw e;
    }
  }

  /** The etcd the instances use. */
  EtcdCluster etcd() {
    return this.etcd;
  }

  /** The instances still running. */
  List<SampleAppProcess> running() {
    return this.apps.stream().filter(SampleAppProcess::isAlive).toList();
  }

  /**
   * Asks every running instance at once: while etcd is down each question that reads it waits for
   * the app's etcd timeout, and one after the other would add those waits up.
   */
  <T> Map<SampleAppProcess, T> askAll(Function<SampleAppProcess, T> question) {
    List<SampleAppProcess> running = running();
    ExecutorService executor = Executors.newFixedThreadPool(running.size());
    try {
      Map<SampleAppProcess, Future<T>> futures = new LinkedHashMap<>();
      for (SampleAppProcess app : running) {
        futures.put(app, executor.submit(() -> question.apply(app)));
      }
      Map<SampleAppProcess, T> answers = new LinkedHashMap<>();
      for (Map.Entry<SampleAppProcess, Future<T>> future : futures.entrySet()) {
        answers.put(future.getKey(), future.getValue().get(30, TimeUnit.SECONDS));
      }
      return answers;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(e);
    } finally {
      executor.shutdownNow();
    }
  }

  /**
   * Waits until exactly one running instance holds the office and every running instance names it
   * as the leader with the same token: the endpoint and the assert URL agree.
   */
  Elected awaitOneLeader(Duration timeout) {
    return await("exactly one leader among " + running())
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(50))
        .until(this::oneLeader, Optional::isPresent)
        .orElseThrow();
  }

  /** The leader if exactly one instance holds the office and all agree on it, else empty. */
  private Optional<Elected> oneLeader() {
    List<SampleAppProcess> running = running();
    List<SampleAppProcess> holders = running.stream().filter(SampleAppProcess::holds).toList();
    if (holders.size() != 1) {
      return Optional.empty();
    }
    Set<Optional<Leader>> seen = new HashSet<>();
    for (SampleAppProcess app : running) {
      try {
        seen.add(app.leader());
      } catch (IllegalStateException e) {
        return Optional.empty();
      }
    }
    if (seen.size() != 1) {
      return Optional.empty();
    }
    Optional<Leader> leader = seen.iterator().next();
    SampleAppProcess holder = holders.get(0);
    if (leader.isEmpty() || !leader.get().id().equals(holder.id())) {
      return Optional.empty();
    }
    // Asked again: the holder might have lost the office between the two questions.
    return holder.holds() ? Optional.of(new Elected(holder, leader.get())) : Optional.empty();
  }

  /**
   * Stops the leader with {@code stop} and measures until another instance holds the office. Waits
   * up to {@code timeout}, so that a slow hand-over is measured and reported, not only refused;
   * then waits for the stopped instance to exit and for every instance to agree on the successor.
   */
  HandOver stopLeader(Elected leader, Consumer<SampleAppProcess> stop, Duration timeout)
      throws InterruptedException {
    List<SampleAppProcess> others =
        running().stream().filter(other -> other != leader.app()).toList();
    Instant stopped = Instant.now();
    long start = System.nanoTime();
    stop.accept(leader.app());
    SampleAppProcess next =
        await("a successor of " + leader.app())
            .atMost(timeout)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(5))
            .until(
                () -> others.stream().filter(SampleAppProcess::holds).findFirst(),
                Optional::isPresent)
            .orElseThrow();
    Duration observed = Duration.ofNanos(System.nanoTime() - start);
    assertThat(leader.app().awaitExit(Duration.ofSeconds(30)))
        .as("%s exits", leader.app())
        .isTrue();
    Elected successor = awaitOneLeader(Duration.ofSeconds(10));
    assertThat(successor.app()).isSameAs(next);
    return new HandOver(
        leader, successor, observed, Duration.between(stopped, successor.leader().since()));
  }

  /** Kills every instance, then etcd. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (SampleAppProcess app : this.apps) {
      try {
        app.close();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    this.etcd.close();
    if (failure != null) {
      throw failure;
    }
  }

  /** {@code count} distinct loopback ports that were free a moment ago. */
  private static Set<Integer> freePorts(int count) {
    Set<Integer> ports = new LinkedHashSet<>();
    while (ports.size() < count) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        ports.add(socket.getLocalPort());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return ports;
  }

  @Override
  public String toString() {
    return this.apps.stream().map(Object::toString).collect(Collectors.joining(", "));
  }

  /**
   * A change of leader, timed from the signal to the old leader.
   *
   * @param from the leader that was stopped
   * @param to its successor
   * @param observed until the successor's assert URL answered 200, as a user would see it
   * @param won until the successor won, by the {@code since} of its holder value
   */
  record HandOver(Elected from, Elected to, Duration observed, Duration won) {

    /** One line for the figures file. */
    String describe(String how) {
      return String.format(
          "%s: %s -> %s, token %d -> %d: won %d ms after the signal, seen leading after %d ms",
          how,
          this.from.app().id(),
          this.to.app().id(),
          this.from.token(),
          this.to.token(),
          this.won.toMillis(),
          this.observed.toMillis());
    }
  }

  /**
   * The instance that holds the office, and the leader as every instance reports it.
   *
   * @param app the instance that holds it
   * @param leader its holder as the endpoint shows it (id, token, since)
   */
  record Elected(SampleAppProcess app, Leader leader) {

    long token() {
      return this.leader.token();
    }
  }
}
