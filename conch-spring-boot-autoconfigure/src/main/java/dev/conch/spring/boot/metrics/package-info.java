/**
 * The Micrometer meters of conch ({@link ConchMetrics}, a {@code MeterBinder}) and their
 * documentation ({@link dev.conch.spring.observation.ConchMeterDocumentation}): leadership,
 * transitions, terms, campaign time, dropped events, renewal failures, and for alerts each office's
 * leaderless time and worst fail-over.
 */
@NullMarked
package dev.conch.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
