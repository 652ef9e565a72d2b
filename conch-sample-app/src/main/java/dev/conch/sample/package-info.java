/**
 * The sample application of conch: a report job, a feed and a store that only the leader runs or
 * writes.
 */
@NullMarked
package dev.conch.sample;

import org.jspecify.annotations.NullMarked;
