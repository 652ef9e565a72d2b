package dev.conch.spring;

import dev.conch.Election;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;

/**
 * Every office this instance campaigns for, by name: the {@link Election} beans of the context (one
 * per configured office, or the application's own), plus the offices that only
 * {@code @OnLeadership} methods name, which have no bean of their own.
 *
 * <pre>{@code
 * @Autowired Elections elections;
 * elections.get("billing").isLeader();
 * }</pre>
 */
public final class Elections implements DisposableBean {

  private final Map<String, Election> byOffice = new LinkedHashMap<>();

  private final List<Election> created = new ArrayList<>();

  private final @Nullable String defaultOffice;

  private final @Nullable Function<String, Election> factory;

  /**
   * Elections made of {@code elections}, one per office.
   *
   * @param elections the candidates of this instance
   * @param defaultOffice the office of {@code @OnLeadership} methods that name none, or {@code
   *     null}
   * @throws IllegalArgumentException when two candidates are for the same office
   */
  public Elections(List<Election> elections, @Nullable String defaultOffice) {
    this(elections, defaultOffice, null);
  }

  /**
   * The candidates of this instance, and how to make one for an office that only a hook, a
   * {@code @LeaderOnly} method or a {@code @LeaderLifecycle} bean names.
   *
   * @param elections the candidates of this instance
   * @param defaultOffice the office of {@code @OnLeadership} methods that name none, or {@code
   *     null}
   * @param factory makes the candidate of an office that no {@code Election} bean is for, or {@code
   *     null} to refuse such offices
   * @throws IllegalArgumentException when two candidates are for the same office
   */
  public Elections(
      List<Election> elections,
      @Nullable String defaultOffice,
      @Nullable Function<String, Election> factory) {
    for (Election election : elections) {
      if (this.byOffice.putIfAbsent(election.office(), election) != null) {
        throw new IllegalArgumentException(
            "Two Election beans campaign for office '"
                + election.office()
                + "'; an instance has one candidate per office");
      }
    }
    this.defaultOffice = defaultOffice;
    this.factory = factory;
  }

  /**
   * The candidate for {@code office}.
   *
   * @throws NoSuchElementException when this instance does not campaign for it
   */
  public synchronized Election get(String office) {
    Election election = this.byOffice.get(office);
    if (election == null) {
      throw new NoSuchElementException(
          "No election for office '" + office + "'; offices: " + this.byOffice.keySet());
    }
    return election;
  }

  /** The candidate for {@code office}, if this instance campaigns for it. */
  public synchronized Optional<Election> find(String office) {
    return Optional.ofNullable(this.byOffice.get(office));
  }

  /** The office of {@code @OnLeadership} methods that name none, if one is configured. */
  public Optional<String> defaultOffice() {
    return Optional.ofNullable(this.defaultOffice);
  }

  /** The names of every office, in the order they were configured. */
  public synchronized Set<String> offices() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(this.byOffice.keySet()));
  }

  /** Every candidate, in the order of {@link #offices()}. */
  public synchronized List<Election> all() {
    return List.copyOf(this.byOffice.values());
  }

  /**
   * The candidate for {@code office}, created (not started) when there is none yet: how an office
   * named only by {@code @OnLeadership} joins.
   *
   * @throws NoSuchElementException when there is none and these elections cannot create one
   */
  public synchronized Election getOrCreate(String office) {
    Election election = this.byOffice.get(office);
    if (election != null) {
      return election;
    }
    if (this.factory == null) {
      return get(office);
    }
    election = this.factory.apply(office);
    this.byOffice.put(office, election);
    this.created.add(election);
    return election;
  }

  /** Closes the candidates created here; beans are closed by the context. */
  @Override
  public synchronized void destroy() {
    for (Election election : this.created) {
      election.close();
    }
  }
}
