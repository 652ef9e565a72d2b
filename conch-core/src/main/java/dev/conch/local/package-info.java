/**
 * The in-memory store, {@link dev.conch.local.LocalOffices}: candidates of one JVM compete as they
 * would in etcd (first come, first served; tokens strictly increasing), and a test grants, revokes
 * and expires leadership by hand. For users' unit tests, conch's state-machine tests and a
 * standalone mode; it says nothing about etcd's behaviour.
 */
@NullMarked
package dev.conch.local;

import org.jspecify.annotations.NullMarked;
