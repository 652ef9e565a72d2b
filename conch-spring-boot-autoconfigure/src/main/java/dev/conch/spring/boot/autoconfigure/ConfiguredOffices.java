package dev.conch.spring.boot.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The offices named in configuration, read from the {@link Environment} so that Election bean
 * definitions can be registered before any bean exists.
 *
 * @param defaultOffice {@code conch.office}, else {@code spring.application.name}, else {@code
 *     null}
 * @param defaultOfficeProperty the property the default office came from, for error messages
 * @param names the default office, then each key of {@code conch.offices}, in order
 */
record ConfiguredOffices(
    @Nullable String defaultOffice, String defaultOfficeProperty, Set<String> names) {

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
    return new ConfiguredOffices(office, property, Collections.unmodifiableSet(names));
  }

  /** The property an office's name came from, for error messages. */
  String propertyOf(String office) {
    return office.equals(this.defaultOffice) ? this.defaultOfficeProperty : "conch.offices";
  }
}
