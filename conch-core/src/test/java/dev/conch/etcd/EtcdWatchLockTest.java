package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * jetcd 0.8.7 delivers a watcher's error while holding its watch client's one lock, the lock that
 * {@code watch()} takes too. This test makes that interleaving happen for certain, with jetcd's own
 * code: it holds that lock (as jetcd's error delivery does) until conch, making the session's watch
 * again after it broke, waits for it; then it delivers an error to the old watcher through jetcd's
 * own error handling. A term that held its monitor across {@code watch()} and took it in the error
 * callback stopped both threads for good: no renewal again, the term lost one TTL later.
 */
@Timeout(60)
class EtcdWatchLockTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();
  private boolean stuck;

  @AfterEach
  void close() {
    if (!stuck) { // closing a client whose watch lock is held forever would hang the test run
      etcds.close();
    }
  }

  @Test
  void aWatchErrorDeliveredWhileTheKeeperReWatchesStopsNeitherThread() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session =
        etcds.session(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(3)));
    Election election = session.election(ElectionOptions.forOffice("watch-lock"));
    election.start();
    await().atMost(Duration.ofSeconds(20)).until(election::isLeader);
    // The session's one watch, of its elections' prefix.
    ByteSequence key = ByteSequence.from(SessionOptions.DEFAULT_PREFIX, StandardCharsets.UTF_8);

    Object watch = client.getWatchClient();
    Object lock = field(watch.getClass(), "lock").get(watch);
    Object watcher =
        await().atMost(Duration.ofSeconds(10)).until(() -> watcherOf(watch, key), w -> w != null);
    Method handleError =
        watcher
            .getClass()
            .getDeclaredMethod(
                "handleError", io.etcd.jetcd.common.exception.EtcdException.class, boolean.class);
    handleError.setAccessible(true);

    CompletableFuture<Void> delivered =
        CompletableFuture.runAsync(
            () -> {
              synchronized (lock) {
                try {
                  // The watch breaks: conch makes it again 500 ms later, and so would jetcd.
                  handleError.invoke(watcher, unavailable(), true);
                  await()
                      .atMost(Duration.ofSeconds(10))
                      .until(EtcdWatchLockTest::theWatchWaitsForJetcdsLock);
                  // A second error on the old watcher, while conch waits for the lock.
                  handleError.invoke(watcher, unavailable(), true);
                } catch (ReflectiveOperationException e) {
                  throw new IllegalStateException(e);
                }
              }
            });

    try {
      delivered.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      stuck = true;
      throw new AssertionError("the error delivery and the lease keeper deadlocked", e);
    }
    // Renewals go on: the lease's deadline keeps moving and the term stays held for several TTLs.
    long before = session.keeper().current().validUntil;
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> session.keeper().current().validUntil > before);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(7);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              assertThat(election.isLeader()).isTrue();
              return System.nanoTime() > until;
            });
  }

  /** A thread blocked on its way from the session's watch into jetcd (closing or watching). */
  private static boolean theWatchWaitsForJetcdsLock() {
    return Thread.getAllStackTraces().entrySet().stream()
        .anyMatch(
            e ->
                e.getKey().getState() == Thread.State.BLOCKED
                    && Arrays.stream(e.getValue())
                        .anyMatch(f -> f.getClassName().equals(DeletionWatch.class.getName())));
  }

  private static io.etcd.jetcd.common.exception.EtcdException unavailable() {
    return EtcdExceptionFactory.newEtcdException(ErrorCode.UNAVAILABLE, "test: stream reset");
  }

  private static Object watcherOf(Object watch, ByteSequence key)
      throws ReflectiveOperationException {
    for (Object watcher : (List<?>) field(watch.getClass(), "watchers").get(watch)) {
      if (key.equals(field(watcher.getClass(), "key").get(watcher))) {
        return watcher;
      }
    }
    return null;
  }

  private static Field field(Class<?> type, String name) throws NoSuchFieldException {
    Field field = type.getDeclaredField(name);
    field.setAccessible(true);
    return field;
  }
}
