/**
 * The health-gated candidacy: an instance whose required health indicators are down stops
 * campaigning (and hands its offices over) until they are up again, and says so with {@link
 * dev.conch.spring.health.CandidacyEvent candidacy events}. Enabled by {@code conch.health.require}
 * (or a per-office {@code conch.offices.<name>.require-health}).
 */
@NullMarked
package dev.conch.spring.health;

import org.jspecify.annotations.NullMarked;
