/**
 * The actuator endpoint {@code conch}: this instance's offices, who leads any office, and whether
 * this instance holds an office right now, for scripts and load balancers.
 */
@NullMarked
package dev.conch.spring.boot.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
