package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InjectionPoint;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

/**
 * Explains a missing {@link Election} bean, as for {@code @Qualifier("invoices") Election}: an
 * office that only {@code @LeaderOnly}, {@code @OnLeadership} or {@code @LeaderLifecycle} names has
 * an election, in {@code Elections}, but no bean. The Election beans are registered from
 * configuration before any bean exists; the annotated offices are found on the beans as they are
 * created, when it is too late to add bean definitions (a {@code @Bean} method's declared type need
 * not even be the class that carries the annotations).
 *
 * <p>Ahead of Boot's own analysis of a missing bean, which would only say that no bean qualifies.
 */
class NoElectionBeanFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
    implements Ordered {

  @Override
  protected @Nullable FailureAnalysis analyze(
      Throwable rootFailure, NoSuchBeanDefinitionException cause) {
    ResolvableType type = cause.getResolvableType();
    if (type == null || !Election.class.equals(type.resolve())) {
      return null;
    }
    InjectionPoint injectionPoint = injectionPoint(rootFailure);
    Qualifier qualifier =
        (injectionPoint != null) ? injectionPoint.getAnnotation(Qualifier.class) : null;
    String office = (qualifier != null && !qualifier.value().isEmpty()) ? qualifier.value() : null;
    String where = (injectionPoint != null) ? " for " + injectionPoint : "";
    if (office == null) {
      return new FailureAnalysis(
          "No Election bean" + where + ": " + cause.getMessage() + ".",
          "Inject Elections and look the office up with Elections.get(office), or configure the"
              + " office (conch.office, or conch.offices.<office>.*): configured offices are"
              + " Election beans, qualified by their name.",
          cause);
    }
    return new FailureAnalysis(
        "No Election bean for office '" + office + "'" + where + ".",
        "Offices that only @LeaderOnly, @OnLeadership or @LeaderLifecycle name have an election"
            + " but no bean. Inject Elections and use Elections.get(\""
            + office
            + "\"), or configure the office (conch.offices."
            + office
            + ".<setting>, e.g. conch.offices."
            + office
            + ".hook-timeout=30s) so that it is an Election bean qualified '"
            + office
            + "'.",
        cause);
  }

  private static @Nullable InjectionPoint injectionPoint(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof UnsatisfiedDependencyException unsatisfied
          && unsatisfied.getInjectionPoint() != null) {
        return unsatisfied.getInjectionPoint();
      }
    }
    return null;
  }

  /** Before Boot's analysis of a missing bean, which has no order. */
  @Override
  public int getOrder() {
    return 0;
  }
}
