/** Auto-configuration of the health contributor {@code conch}. */
@NullMarked
package dev.conch.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
