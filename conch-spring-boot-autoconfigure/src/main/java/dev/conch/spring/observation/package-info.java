/**
 * The Micrometer observations of conch, their conventions, contexts and documentation ({@link
 * ConchObservationDocumentation}, with the keys of {@link ConchKeyNames}): one per
 * {@code @OnLeadership} hook call ({@code conch.hook}) and one per {@code @LeaderOnly} call ({@code
 * conch.leaderonly}). A term of leadership is no observation (it would be one span for hours,
 * exported only at its end); its meters are in {@code dev.conch.spring.boot.metrics}.
 */
@NullMarked
package dev.conch.spring.observation;

import org.jspecify.annotations.NullMarked;
