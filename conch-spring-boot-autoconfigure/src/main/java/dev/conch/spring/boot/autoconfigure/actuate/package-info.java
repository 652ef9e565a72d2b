/** Auto-configuration of the actuator endpoint {@code conch}. */
@NullMarked
package dev.conch.spring.boot.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
