package dev.conch.test.junit;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.local.LocalOffices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension for unit tests of code that uses conch-core without Spring: each test gets
 * fresh in-memory offices ({@link LocalOffices}), candidates that are started for it and closed
 * after it, and waits bounded by a timeout.
 *
 * <pre>{@code
 * @RegisterExtension final LocalOfficesExtension offices = new LocalOfficesExtension();
 *
 * @Test
 * void followerDoesNothing() {
 *   Election a = offices.candidate("billing", "a");    // leads: it came first
 *   Election b = offices.candidate("billing", "b");
 *   offices.awaitLeader("billing", "a");
 *   offices.store().grant("billing", "b");              // b leads now, with a new token
 *   offices.awaitLeader("billing", "b");
 *   offices.store().revoke("billing");                  // b's key deleted: a leads again
 * }
 * }</pre>
 *
 * <p>Test and lifecycle methods may declare a {@link LocalOffices} parameter. The in-memory offices
 * are not etcd: test etcd behaviour against a real member ({@code conch-test}'s {@code
 * EtcdExtension}).
 */
public final class LocalOfficesExtension
    implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

  /** How long each wait may take unless told otherwise: 10 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final Duration timeout;

  private final List<Election> candidates = new CopyOnWriteArrayList<>();

  private volatile @Nullable LocalOffices store;

  /** An extension whose waits take at most {@link #DEFAULT_TIMEOUT}. */
  public LocalOfficesExtension() {
    this(DEFAULT_TIMEOUT);
  }

  /** An extension whose waits take at most {@code timeout}. */
  public LocalOfficesExtension(Duration timeout) {
    this.timeout = timeout;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    this.store = new LocalOffices();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    for (Election candidate : this.candidates) {
      candidate.close();
    }
    this.candidates.clear();
    this.store = null;
  }

  /**
   * The in-memory offices of the running test: {@code grant}, {@code revoke}, {@code expire},
   * {@code failRenewal}, {@code leader}.
   *
   * @throws IllegalStateException outside a test
   */
  public LocalOffices store() {
    LocalOffices offices = this.store;
    if (offices == null) {
      throw new IllegalStateException(
          "No test runs: register LocalOfficesExtension with @RegisterExtension in an instance"
              + " field and use it inside a test");
    }
    return offices;
  }

  /**
   * A started candidate {@code id} for {@code office}, with the default options; closed after the
   * test.
   */
  public Election candidate(String office, String id) {
    return candidate(ElectionOptions.builder(office).candidateId(id).build());
  }

  /** A started candidate with these options; closed after the test. */
  public Election candidate(ElectionOptions options) {
    Election election = store().election(options);
    this.candidates.add(election);
    election.start();
    return election;
  }

  /** Waits until candidate {@code id} leads {@code office} in the store; returns it as stored. */
  public Holder awaitLeader(String office, String id) {
    await(
        () ->
            store().leader(office).map(h -> id.equals(h.id())).orElse(false)
                && this.candidates.stream()
                    .filter(c -> c.office().equals(office) && id.equals(c.candidate().id()))
                    .allMatch(Election::isLeader),
        id + " to lead office " + office);
    return store().leader(office).orElseThrow();
  }

  /** Waits until {@code condition} holds, at most the timeout; fails the test with {@code what}. */
  public void await(BooleanSupplier condition, String what) {
    Awaitility.await(what)
        .atMost(this.timeout)
        .pollInterval(Duration.ofMillis(10))
        .until(condition::getAsBoolean);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalOffices.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return store();
  }
}
