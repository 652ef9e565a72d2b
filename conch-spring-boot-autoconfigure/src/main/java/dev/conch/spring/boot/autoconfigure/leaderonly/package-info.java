/**
 * Methods that run only while this instance leads an office: {@link
 * dev.conch.spring.boot.autoconfigure.leaderonly.LeaderOnly @LeaderOnly} and {@link
 * dev.conch.spring.boot.autoconfigure.leaderonly.CurrentLeadership}.
 */
@NullMarked
package dev.conch.spring.boot.autoconfigure.leaderonly;

import org.jspecify.annotations.NullMarked;
