/**
 * {@link org.springframework.context.Lifecycle Lifecycle} beans bound to an office: started while
 * this instance leads it, stopped when it stops ({@link
 * dev.conch.spring.boot.autoconfigure.lifecycle.LeaderLifecycle @LeaderLifecycle}, {@code
 * conch.offices.<office>.lifecycle-beans}).
 */
@NullMarked
package dev.conch.spring.boot.autoconfigure.lifecycle;

import org.jspecify.annotations.NullMarked;
