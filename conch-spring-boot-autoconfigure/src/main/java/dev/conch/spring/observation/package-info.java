/**
 * The conventions that name the Micrometer observations of conch: one per term of leadership
 * ({@code conch.leadership}) and one per {@code @OnLeadership} hook call ({@code conch.hook}).
 */
@NullMarked
package dev.conch.spring.observation;

import org.jspecify.annotations.NullMarked;
