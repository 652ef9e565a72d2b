/** Auto-configuration of conch's observations. */
@NullMarked
package dev.conch.spring.boot.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
