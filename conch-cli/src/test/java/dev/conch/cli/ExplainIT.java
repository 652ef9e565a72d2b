package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code conch elect <office> --explain}: the timing budget of run mode, printed without asking
 * etcd. The figures are computed here by hand (docs/core.md has the formulas).
 */
class ExplainIT {

  /** Nothing listens there. */
  private final Conch conch = Conch.at("http://127.0.0.1:9");

  @Test
  void defaultsAreExplainedWithoutAskingEtcd() throws IOException {
    try (Listener etcd = new Listener()) {
      Conch.Result result = Conch.at(etcd.endpoint()).run("elect", "billing", "--explain");

      assertThat(result.status()).as(result.stderr()).isZero();
      assertThat(result.stderr()).isEmpty();
      // TTL 15 s; kill-after 5 s + 500 ms slack + 500 ms margin = 6 s before D; W = 9 s.
      assertThat(result.stdout())
          .contains("office billing: ttl 15s asked for, kill-after 5s, hook-timeout 30s")
          .contains(
              "  etcd grants the ttl asked for unless its minimum (1.5 election timeouts, 2s with"
                  + " its defaults) is longer")
          .contains(
              row("leadership dropped")
                  + "D-6s (kill-after + 1s to stop and for the safety margin),"
                  + " leaving 9s to renew in")
          .contains(row("renewals") + "every 2s250ms, each attempt up to 1s125ms") // W/4, W/8
          // Only after a timeout at once; after a fast failure A/4 later.
          .contains(
              "after an attempt that timed out the next goes at once, after one that failed fast"
                  + " (no connection, no raft leader) up to 281ms later")
          // W - interval - attempt; just after a renewal W - attempt.
          .contains(
              row("etcd outage") + "ridden out up to 5s625ms whenever it begins (up to 7s875ms")
          .contains(row("raft leader change") + "an etcd raft leader change costs no term")
          .contains(row("crash fail-over") + "12s750ms to 15s500ms") // TTL - I .. TTL + 500 ms
          // kill-after, then up to 2 s for the group to be gone after its SIGKILL.
          .contains(
              row("graceful hand-over")
                  + "up to 7s + a few round trips (the command's SIGTERM grace, and after a SIGKILL"
                  + " up to 2s for its process group to be gone)")
          .contains(row("command killed") + "by D-1s") // D - 6 s + 5 s
          .contains(
              row("on-lose hook") + "none given; one would be killed by D-500ms") // the margin
          .contains(row("process pause") + "up to 12s250ms"); // TTL - I - 500 ms
      assertThat(etcd.accepted()).as("connections to etcd").isZero();
    }
  }

  @Test
  void etcdsShortestTtlWithAShortKillAfter() {
    Conch.Result result =
        conch.run("elect", "x", "--explain", "--ttl", "2s", "--kill-after", "100ms");

    assertThat(result.status()).as(result.stderr()).isZero();
    // Loss lead 100 + 500 + 500 ms = 1.1 s; W = 900 ms; renewals every 225 ms, attempts 112.5 ms.
    assertThat(result.stdout())
        .contains(row("leadership dropped") + "D-1s100ms")
        .contains("leaving 900ms to renew in")
        .contains("every 225ms, each attempt up to 112ms")
        .contains("ridden out up to 562ms") // W - 225 ms - 112.5 ms
        .contains(
            row("raft leader change")
                + "a raft leader change that takes longer than 562ms ends the term (etcd's take"
                + " up to 4s with its default election timeout: raise the ttl, or shorten"
                + " kill-after)")
        .contains("1s775ms to 2s500ms")
        .contains(row("graceful hand-over") + "up to 2s100ms")
        .contains("by D-1s at the latest")
        .contains("killed by D-500ms after a loss")
        .contains("up to 1s275ms"); // 2 s - 225 ms - 500 ms
  }

  @Test
  void anOnLoseHookAndACommandAreTakenIntoAccountButNotRun() {
    Conch.Result result =
        conch.run("elect", "x", "--explain", "--on-lose", "echo bye", "--", "echo", "hello");

    assertThat(result.status()).as(result.stderr()).isZero();
    assertThat(result.stdout())
        .doesNotContain("hello")
        .doesNotContain("bye")
        // (5 s + 2 s) + 30 s + (5 s + 2 s): each group may take 2 s to be gone after SIGKILL.
        .contains(row("graceful hand-over") + "up to 44s")
        .contains("after a SIGKILL up to 2s for each process group to be gone")
        .contains(row("on-lose hook") + "killed by D-500ms after a loss");
  }

  @Test
  void aKillAfterThatDoesNotFitIsRefusedAsRunModeRefusesIt() {
    Conch.Result explained = conch.run("elect", "x", "--explain", "--ttl", "3s");
    Conch.Result run = conch.run("elect", "x", "--ttl", "3s", "--", "true");

    assertThat(explained.status()).isEqualTo(64);
    assertThat(explained.stdout()).isEmpty();
    assertThat(explained.stderr()).contains("--kill-after", "--ttl 3s").isEqualTo(run.stderr());
    assertThat(run.status()).isEqualTo(64);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "elect x --explain --kill-after soon",
        "elect x --explain --ttl 1500ms",
        "elect x --explain --hook-timeout 0s",
        "elect x --explain --who",
        "elect x --explain --json",
        "elect x --explain --endpoints ftp://h:1"
      })
  void badValuesExit64(String args) {
    Conch.Result result = conch.run(args.split(" "));

    assertThat(result.status()).as(result.stderr()).isEqualTo(64);
    assertThat(result.stdout()).isEmpty();
    assertThat(result.stderr()).startsWith("conch: ");
  }

  /** A line's label as the explanation pads it, so that its figure follows. */
  private static String row(String label) {
    return String.format("%-20s", label + ":");
  }

  /** A port that accepts connections and counts them, answering nothing. */
  private static final class Listener implements AutoCloseable {

    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread thread = new Thread(this::accept, "explain-it-listener");

    Listener() throws IOException {
      thread.setDaemon(true);
      thread.start();
    }

    String endpoint() {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }

    int accepted() {
      return accepted.get();
    }

    private void accept() {
      while (!socket.isClosed()) {
        try (Socket ignored = socket.accept()) {
          accepted.incrementAndGet();
        } catch (IOException closed) {
          return;
        }
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
