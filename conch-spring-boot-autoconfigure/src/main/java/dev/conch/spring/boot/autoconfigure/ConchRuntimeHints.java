package dev.conch.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * Hints for what conch binds by reflection outside of its configuration properties beans: the
 * offices are bound from the environment ({@code conch.offices.<name>.*} into {@link
 * ConchProperties.Office}) before any bean exists, to register the Election beans. Imported by
 * {@link ConchAutoConfiguration}, so only an application that runs conch gets them. The hook
 * methods are registered through {@code @OnLeadership}, which is {@code @Reflective}.
 */
class ConchRuntimeHints implements RuntimeHintsRegistrar {

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    BindableRuntimeHintsRegistrar.forTypes(ConchProperties.class, ConchRunnerProperties.class)
        .registerHints(hints, classLoader);
  }
}
