/** The health contributor {@code conch}: whether this instance can take part in its elections. */
@NullMarked
package dev.conch.spring.boot.health;

import org.jspecify.annotations.NullMarked;
