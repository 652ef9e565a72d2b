package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The line of a session's requests: a bound on those under way, and no nesting of the rest. */
@Timeout(60)
class InFlightTest {

  @Test
  void atMostTheLimitAreUnderWayAndTheRestGoInOrder() {
    InFlight line = new InFlight(2);
    List<CompletableFuture<Integer>> sent = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    List<CompletableFuture<Integer>> answers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int n = i;
      answers.add(
          line.send(
              () -> {
                order.add(n);
                CompletableFuture<Integer> call = new CompletableFuture<>();
                sent.add(call);
                return call;
              }));
    }
    assertThat(order).containsExactly(0, 1);
    sent.get(1).complete(1);
    assertThat(order).containsExactly(0, 1, 2);
    sent.get(0).complete(0);
    sent.get(2).complete(2);
    assertThat(order).containsExactly(0, 1, 2, 3, 4);
    assertThat(answers.get(1)).isCompletedWithValue(1);
  }

  @Test
  void fewerAreUnderWayWhileAnswersAreSlowAndOneOnceStrained() {
    AtomicLong now = new AtomicLong();
    long slow = 1_000;
    InFlight line = new InFlight(8, now::get, () -> slow);
    List<CompletableFuture<Integer>> sent = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      line.send(
          () -> {
            CompletableFuture<Integer> call = new CompletableFuture<>();
            sent.add(call);
            return call;
          });
    }
    assertThat(sent).hasSize(8);

    // Answers slower than `slow`: half as many, at most once per `slow`.
    now.addAndGet(slow + 1);
    sent.get(0).complete(0);
    assertThat(line.window()).isEqualTo(4);
    sent.get(1).complete(1);
    sent.get(2).complete(2);
    sent.get(3).complete(3);
    assertThat(line.window()).isEqualTo(4);
    assertThat(sent).as("4 still under way: none starts").hasSize(8);
    sent.get(4).complete(4);
    assertThat(sent).as("3 under way: one starts").hasSize(9);

    // A quick answer (within a quarter of `slow`): one more, and two start in its place.
    sent.get(8).complete(8);
    assertThat(line.window()).isEqualTo(5);
    assertThat(sent).hasSize(11);

    // A failed renewal: one at a time from now on; quick answers widen it again, one by one.
    line.strained();
    assertThat(line.window()).isEqualTo(1);
    sent.get(9).complete(9);
    assertThat(line.window()).isEqualTo(2);
    assertThat(sent).as("4 under way, more than 2: none starts").hasSize(11);
  }

  @Test
  void aLongLineOfCallsThatAnswerAtOnceDoesNotNestOnTheStack() {
    InFlight line = new InFlight(1);
    CompletableFuture<Void> first = new CompletableFuture<>();
    line.send(() -> first);
    AtomicInteger answered = new AtomicInteger();
    int calls = 200_000;
    for (int i = 0; i < calls; i++) {
      // As a closed client does: every call fails before it is sent.
      line.send(() -> CompletableFuture.failedFuture(new IllegalStateException("closed")))
          .whenComplete((value, error) -> answered.incrementAndGet());
    }
    first.complete(null); // the whole line drains from this one answer
    assertThat(answered).hasValue(calls);
  }
}
