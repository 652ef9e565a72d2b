package dev.conch.spring.fence;

import dev.conch.jdbc.StaleTokenException;

/**
 * Told of each fenced transaction's outcome by {@link TransactionFence}: the meters implement it.
 */
public interface FenceListener {

  /** Does nothing. */
  FenceListener NONE = new FenceListener() {};

  /** A transaction that passed the fence of {@code office} with {@code token} committed. */
  default void committed(String office, long token) {}

  /** The fence refused a stale token; the transaction is rolled back. */
  default void refused(StaleTokenException refusal) {}
}
