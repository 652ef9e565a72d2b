package dev.conch.spring.boot.actuate.endpoint;

import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.ActionDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.AssertionDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.ConchDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.HolderDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpointWebExtension.ErrorDescriptor;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Hints for the JSON the {@code conch} endpoint writes. The actuator registers the return type of
 * each operation itself, but the web extension answers {@code WebEndpointResponse<Object>} (a
 * descriptor or an error), which names none of them: every descriptor is registered here for
 * binding (its record components, and the types they hold).
 */
class ConchEndpointRuntimeHints implements RuntimeHintsRegistrar {

  private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    this.bindings.registerReflectionHints(
        hints.reflection(),
        ConchDescriptor.class,
        HolderDescriptor.class,
        AssertionDescriptor.class,
        ActionDescriptor.class,
        ErrorDescriptor.class);
  }
}
