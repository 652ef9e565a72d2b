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
 * How often each {@code @LeaderOnly} method ran and was skipped, by method ({@code Class.method()},
 * as the starter names it), by {@link LeaderOnlyTasks} task (its name) and by office; a key that is
 * neither an office, a {@code @LeaderOnly} method of the context nor a task name given so far is
 * refused with the keys that are.
 */
final class LeaderOnlyCounts {

  private final Map<String, AtomicLong> runs = new ConcurrentHashMap<>();

  private final Map<String, AtomicLong> skips = new ConcurrentHashMap<>();

  private final ListableBeanFactory beanFactory;

  private final Supplier<Set<String>> offices;

  private volatile @Nullable Set<String> methods;

  LeaderOnlyCounts(ListableBeanFactory beanFactory, Supplier<Set<String>> offices) {
    this.beanFactory = beanFactory;
    this.offices = offices;
  }

  void ran(String office, String method) {
    count(this.runs, office, method);
  }

  void skipped(String office, String method) {
    count(this.skips, office, method);
  }

  long runs(String key) {
    return get(this.runs, key);
  }

  long skips(String key) {
    return get(this.skips, key);
  }

  /** Forgets every count. */
  void clear() {
    this.runs.clear();
    this.skips.clear();
  }

  /**
   * The key of {@code type}'s {@code @LeaderOnly} method {@code name}, as the starter names it.
   *
   * @throws IllegalArgumentException when {@code type} has no such method
   */
  String key(Class<?> type, String name) {
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

  private static void count(Map<String, AtomicLong> counts, String office, String method) {
    counts.computeIfAbsent(method, m -> new AtomicLong()).incrementAndGet();
    // A task named as its office counts once there.
    if (!office.equals(method)) {
      counts.computeIfAbsent(office, o -> new AtomicLong()).incrementAndGet();
    }
  }

  private long get(Map<String, AtomicLong> counts, String key) {
    AtomicLong count = counts.get(key);
    if (count != null) {
      return count.get();
    }
    if (!this.offices.get().contains(key) && !methods().contains(key) && !tasks().contains(key)) {
      throw new IllegalArgumentException(
          "No office, @LeaderOnly method or leader-only task '" + key + "'; " + known());
    }
    return 0;
  }

  private String known() {
    return "the offices are "
        + new TreeSet<>(this.offices.get())
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
}
