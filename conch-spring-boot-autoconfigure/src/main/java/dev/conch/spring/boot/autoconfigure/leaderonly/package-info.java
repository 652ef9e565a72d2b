/** Auto-configuration of {@link dev.conch.spring.leaderonly.LeaderOnly @LeaderOnly} methods. */
@NullMarked
package dev.conch.spring.boot.autoconfigure.leaderonly;

import org.jspecify.annotations.NullMarked;
