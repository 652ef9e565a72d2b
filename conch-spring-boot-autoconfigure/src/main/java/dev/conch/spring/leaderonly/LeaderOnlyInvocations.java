package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * Told of each call of a {@link LeaderOnly @LeaderOnly} method (or {@link LeaderOnlyTasks} task):
 * that it runs, that its run {@linkplain #ended ended}, or that it was skipped. Every bean of this
 * type is told (the test kit counts calls with one); its {@link #proceed} runs inside the starter's
 * own observation of the call.
 */
public interface LeaderOnlyInvocations {

  /**
   * The method runs: this instance leads {@code office}.
   *
   * @param method the method, as {@code Class.method()}
   */
  default void run(String office, String method) {}

  /**
   * The run that {@link #run} announced ended, returned or thrown, and all of it is done: how a
   * scheduled job's firing ended is recorded, the call's observation is stopped and its term no
   * longer waits for it. What the run did is there to see.
   *
   * @param method the method, as {@code Class.method()}, or the task's name
   */
  default void ended(String office, String method) {}

  /**
   * The call was skipped: this instance does not lead {@code office}.
   *
   * @param method the method, as {@code Class.method()}
   */
  default void skipped(String office, String method) {}

  /**
   * Makes the call of a method that runs, after {@link #run}: an implementation may wrap it, and
   * calls {@code call} once, on the calling thread.
   *
   * @param leadership the term the method runs in
   * @param method the method, as {@code Class.method()}
   * @return what {@code call} returned
   */
  default @Nullable Object proceed(Leadership leadership, String method, Call call)
      throws Throwable {
    return call.proceed();
  }

  /**
   * How {@code method} is named in these calls, {@code Class.method()}: the simple name of the
   * class that declares it and the method's name.
   */
  static String methodName(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
  }

  /** The call of a {@link LeaderOnly @LeaderOnly} method. */
  @FunctionalInterface
  interface Call {

    /** Calls the method. */
    @Nullable Object proceed() throws Throwable;
  }
}
