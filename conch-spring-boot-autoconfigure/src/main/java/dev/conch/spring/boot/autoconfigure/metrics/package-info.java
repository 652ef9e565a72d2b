/** Auto-configuration of the Micrometer meters of conch. */
@NullMarked
package dev.conch.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
