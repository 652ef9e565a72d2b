package dev.conch.spring.support;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.spring.InvalidOnLeadershipMethodException;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ReflectionUtils;

/**
 * One {@link OnLeadership @OnLeadership} method of one bean, run as a {@link LeadershipHandler}:
 * acquire methods in {@link LeadershipHandler#acquired}, lose methods in {@link
 * LeadershipHandler#lost}.
 */
final class LeadershipMethod implements LeadershipHandler {

  /** Execution order: {@code @Order}, then the order the methods were found in. */
  static final Comparator<LeadershipMethod> EXECUTION_ORDER =
      Comparator.comparingInt(LeadershipMethod::order).thenComparingLong(m -> m.sequence);

  private final Object bean;

  private final Method method;

  private final String description;

  private final String office;

  private final Transition on;

  private final int order;

  private final long sequence;

  /**
   * A method of {@code bean}, checked.
   *
   * @param office the office, empty for the default office
   * @throws InvalidOnLeadershipMethodException when a parameter is neither a Leadership nor, on
   *     LOST, a LossReason
   */
  LeadershipMethod(
      Object bean,
      String beanName,
      Method method,
      String office,
      Transition on,
      int order,
      long sequence) {
    this.bean = bean;
    this.method = method;
    this.description = beanName + "." + method.getName() + "()";
    this.office = office;
    this.on = on;
    this.order = order;
    this.sequence = sequence;
    checkParameters();
    ReflectionUtils.makeAccessible(method);
  }

  String office() {
    return this.office;
  }

  /** The method, as {@code bean.method()}. */
  String name() {
    return this.description;
  }

  Transition on() {
    return this.on;
  }

  int order() {
    return this.order;
  }

  @Override
  public void acquired(Leadership leadership) throws Exception {
    if (this.on == Transition.ACQUIRED) {
      invoke(leadership, null);
    }
  }

  @Override
  public void lost(Leadership leadership, LossReason reason) throws Exception {
    if (this.on == Transition.LOST) {
      invoke(leadership, reason);
    }
  }

  private void invoke(Leadership leadership, @Nullable LossReason reason) throws Exception {
    Class<?>[] types = this.method.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      args[i] = (types[i] == Leadership.class) ? leadership : reason;
    }
    try {
      this.method.invoke(this.bean, args);
    } catch (InvocationTargetException ex) {
      // The election logs and acts on the method's own failure, not on the reflective wrapper.
      Throwable cause = ex.getCause();
      if (cause instanceof Exception exception) {
        throw exception;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw ex;
    }
  }

  private void checkParameters() {
    boolean leadership = false;
    boolean reason = false;
    for (Class<?> type : this.method.getParameterTypes()) {
      if (type == Leadership.class && !leadership) {
        leadership = true;
      } else if (type == LossReason.class && !reason && this.on == Transition.LOST) {
        reason = true;
      } else {
        throw new InvalidOnLeadershipMethodException(
            this.description,
            "it may take a Leadership and, on LOST, a LossReason, nothing else, but it is "
                + this.method.toGenericString(),
            "Declare no parameter, a dev.conch.Leadership, and on Transition.LOST also a"
                + " dev.conch.LossReason, in any order.");
      }
    }
  }

  @Override
  public String toString() {
    return "@OnLeadership(" + this.on + ") " + this.description;
  }
}
