/**
 * Fencing where the data lives: the leader's fencing token checked by the user's own database, in
 * the same transaction as the writes it protects. {@link dev.conch.jdbc.JdbcFence#check} is the
 * fence; {@link dev.conch.jdbc.StaleTokenException} is its refusal; {@link
 * dev.conch.jdbc.FenceDialect} names the supported databases and their schema scripts ({@code
 * dev/conch/jdbc/schema-<platform>.sql}). {@link dev.conch.jdbc.FenceSchema} installs the same
 * fence inside the database (the fence column: a trigger that refuses a stale write in the write
 * itself) and the guard on the fence table. Plain JDBC, no Spring: the Spring modules build on it.
 */
@NullMarked
package dev.conch.jdbc;

import org.jspecify.annotations.NullMarked;
