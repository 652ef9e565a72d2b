/** Micrometer meters of conch: leadership, transitions, campaign time, renewal failures. */
@NullMarked
package dev.conch.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
