/** Micrometer meters of conch: leadership, transitions, campaign time, renewal failures. */
@NullMarked
package dev.conch.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
