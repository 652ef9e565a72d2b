package dev.conch.spring.boot.test;

import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.LeaderOnlyInvocations;
import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The test kit's record of the {@code @LeaderOnly} calls, as the starter reports them to every
 * {@link LeaderOnlyInvocations} bean: how often each method, each {@link LeaderOnlyTasks} task and
 * each office ran (a run counts once it has {@linkplain LeaderOnlyInvocations#ended ended}) and was
 * skipped. {@link TestOffices} reads it; a method, task or office that the context does not have is
 * refused with those it has.
 */
final class LeaderOnlyCounts implements LeaderOnlyInvocations {

  private final Counts offices = new Counts();

  /** By the starter's name of the call: {@code Class.method()}, or a task's name. */
  private final Counts calls = new Counts();

  private final ListableBeanFactory beanFactory;

  private final Supplier<Set<String>> officeNames;

  private volatile @Nullable Set<String> methods;

  LeaderOnlyCounts(ListableBeanFactory beanFactory, Supplier<Set<String>> officeNames) {
    this.beanFactory = beanFactory;
    this.officeNames = officeNames;
  }

  @Override
  public void ended(String office, String method) {
    this.offices.ran(office);
    this.calls.ran(method);
  }

  @Override
  public void skipped(String office, String method) {
    this.offices.skipped(office);
    this.calls.skipped(method);
  }

  /** The runs and skips of every call in {@code office}. */
  Counts.Count office(String office) {
    if (!this.officeNames.get().contains(office)) {
      throw new IllegalArgumentException("No office '" + office + "'; " + known());
    }
    return this.offices.of(office);
  }

  /**
   * The runs and skips of {@code type}'s {@code @LeaderOnly} method {@code name}.
   *
   * @throws IllegalArgumentException when {@code type} has no such method
   */
  Counts.Count method(Class<?> type, String name) {
    return this.calls.of(key(type, name));
  }

  /** The runs and skips of the {@code LeaderOnlyTasks} task {@code name}. */
  Counts.Count task(String name) {
    if (!tasks().contains(name)) {
      throw new IllegalArgumentException("No leader-only task '" + name + "'; " + known());
    }
    return this.calls.of(name);
  }

  /** Forgets every count. */
  void clear() {
    this.offices.clear();
    this.calls.clear();
  }

  /** The starter's name of {@code type}'s {@code @LeaderOnly} method {@code name}. */
  private String key(Class<?> type, String name) {
    Method[] found = new Method[1];
    ReflectionUtils.doWithMethods(
        type,
        method -> found[0] = ClassUtils.getMostSpecificMethod(method, type),
        method ->
            found[0] == null
                && method.getName().equals(name)
                && AnnotatedElementUtils.hasAnnotation(method, LeaderOnly.class));
    if (found[0] == null) {
      throw new IllegalArgumentException(
          type.getName() + " has no @LeaderOnly method '" + name + "'; " + known());
    }
    return LeaderOnlyInvocations.methodName(found[0]);
  }

  private String known() {
    return "the offices are "
        + new TreeSet<>(this.officeNames.get())
        + ", the @LeaderOnly methods "
        + methods()
        + " and the leader-only tasks "
        + tasks();
  }

  /** The names given to the {@code LeaderOnlyTasks} bean so far: tasks are built at run time. */
  private Set<String> tasks() {
    Set<String> names = new TreeSet<>();
    this.beanFactory
        .getBeanProvider(LeaderOnlyTasks.class)
        .forEach(tasks -> names.addAll(tasks.names()));
    return names;
  }

  /** The {@code @LeaderOnly} methods of the context's beans, found once they all exist. */
  private Set<String> methods() {
    Set<String> found = this.methods;
    if (found == null) {
      found = new TreeSet<>();
      for (String name : this.beanFactory.getBeanDefinitionNames()) {
        Class<?> type = this.beanFactory.getType(name, false);
        if (type == null) {
          continue;
        }
        Class<?> user = ClassUtils.getUserClass(type);
        Set<String> keys = found;
        MethodIntrospector.selectMethods(
                user,
                (MethodIntrospector.MetadataLookup<LeaderOnly>)
                    method -> AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class))
            .keySet()
            .forEach(
                method ->
                    keys.add(
                        LeaderOnlyInvocations.methodName(
                            ClassUtils.getMostSpecificMethod(method, user))));
      }
      this.methods = found;
    }
    return found;
  }

  /** Runs and skips by name. */
  static final class Counts {

    private final Map<String, Count> counts = new ConcurrentHashMap<>();

    void ran(String name) {
      of(name).runs.incrementAndGet();
    }

    void skipped(String name) {
      of(name).skips.incrementAndGet();
    }

    Count of(String name) {
      return this.counts.computeIfAbsent(name, key -> new Count());
    }

    void clear() {
      this.counts.values().forEach(Count::clear);
    }

    /** The runs and skips of one name. */
    static final class Count {

      private final AtomicLong runs = new AtomicLong();

      private final AtomicLong skips = new AtomicLong();

      long runs() {
        return this.runs.get();
      }

      long skips() {
        return this.skips.get();
      }

      private void clear() {
        this.runs.set(0);
        this.skips.set(0);
      }
    }
  }
}
