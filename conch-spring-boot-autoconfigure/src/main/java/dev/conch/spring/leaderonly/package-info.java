/**
 * {@link dev.conch.spring.leaderonly.LeaderOnly @LeaderOnly} methods and what an application
 * touches of them: {@link dev.conch.spring.leaderonly.CurrentLeadership} inside a run, {@link
 * dev.conch.spring.leaderonly.LeaderOnlyTasks} for programmatic tasks, {@link
 * dev.conch.spring.leaderonly.Misfire} policies and the {@link
 * dev.conch.spring.leaderonly.JobRecords job records}. The post-processor, interceptor and misfire
 * recovery beside them are built by the starter's auto-configuration; the classes it does not build
 * are package-private.
 */
@NullMarked
package dev.conch.spring.leaderonly;

import org.jspecify.annotations.NullMarked;
