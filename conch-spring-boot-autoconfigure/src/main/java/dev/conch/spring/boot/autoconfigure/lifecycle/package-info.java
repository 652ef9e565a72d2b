/** Auto-configuration of {@link dev.conch.spring.LeaderLifecycle @LeaderLifecycle} beans. */
@NullMarked
package dev.conch.spring.boot.autoconfigure.lifecycle;

import org.jspecify.annotations.NullMarked;
