package dev.conch.spring.boot.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.StringUtils;

/**
 * The offices named in configuration, read from the {@link Environment} so that Election bean
 * definitions can be registered before any bean exists.
 *
 * @param defaultOffice {@code conch.office}, else {@code spring.application.name}, else {@code
 *     null}
 * @param defaultOfficeProperty the property the default office came from, for error messages
 * @param runnerOffice the office of the {@code ExternalCommandRunner} when {@code
 *     conch.runner.command} is set: {@code conch.runner.office}, else the default office; else
 *     {@code null}
 * @param names the default office, each key of {@code conch.offices}, then the runner's office, in
 *     order
 * @param environment where they were read, for the values as the user wrote them
 */
record ConfiguredOffices(
    @Nullable String defaultOffice,
    String defaultOfficeProperty,
    @Nullable String runnerOffice,
    Set<String> names,
    @Nullable PropertyResolver environment) {

  static ConfiguredOffices of(Environment environment) {
    Binder binder = Binder.get(environment);
    String property = "conch.office";
    String office = binder.bind(property, String.class).orElse(null);
    if (!StringUtils.hasText(office)) {
      property = "spring.application.name";
      office = environment.getProperty(property);
    }
    if (!StringUtils.hasText(office)) {
      property = "conch.office";
      office = null;
    }
    Set<String> names = new LinkedHashSet<>();
    if (office != null) {
      names.add(office);
    }
    names.addAll(
        binder
            .bind("conch.offices", Bindable.mapOf(String.class, ConchProperties.Office.class))
            .orElse(Map.of())
            .keySet());
    String runnerOffice = null;
    if (hasRunnerCommand(environment)) {
      runnerOffice = binder.bind("conch.runner.office", String.class).orElse(office);
      if (StringUtils.hasText(runnerOffice)) {
        names.add(runnerOffice);
      } else {
        runnerOffice = null;
      }
    }
    return new ConfiguredOffices(
        office, property, runnerOffice, Collections.unmodifiableSet(names), environment);
  }

  /** The property whose presence asks for an ExternalCommandRunner. */
  static final String RUNNER_COMMAND = "conch.runner.command";

  /**
   * Whether {@code conch.runner.command} is set, which asks for an ExternalCommandRunner: bound as
   * Boot's {@code OnPropertyListCondition} binds it, so that both agree (an empty command is set,
   * and refused by the runner).
   */
  static boolean hasRunnerCommand(Environment environment) {
    return Binder.get(environment).bind(RUNNER_COMMAND, Bindable.listOf(String.class)).isBound();
  }

  /** The property an office's name came from, for error messages. */
  String propertyOf(String office) {
    if (office.equals(this.defaultOffice)) {
      return this.defaultOfficeProperty;
    }
    return office.equals(this.runnerOffice) ? "conch.runner.office" : "conch.offices";
  }

  /** Whether {@code office} is campaigned for by the ExternalCommandRunner. */
  boolean isRunnerOffice(String office) {
    return office.equals(this.runnerOffice);
  }
}
