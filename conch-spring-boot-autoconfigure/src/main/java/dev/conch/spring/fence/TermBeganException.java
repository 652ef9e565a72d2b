package dev.conch.spring.fence;

import org.springframework.dao.ConcurrencyFailureException;

/**
 * The transaction may have read the office's data before its term's raise ended, so it may not have
 * seen the older term's last commits: its fence raised the office's row from the older term's token
 * after the transaction began, and the fence was not the transaction's first step. Nothing of it
 * commits; run it again (a transient failure: Spring's retry support and {@code @Retryable} treat
 * it so). A {@code @Fenced} method that begins its own transaction never gets it, nor does a
 * transaction of a term whose row was already raised.
 */
public class TermBeganException extends ConcurrencyFailureException {

  private final String office;

  private final long earlierToken;

  private final long token;

  /**
   * Creates the exception.
   *
   * @param office the office
   * @param earlierToken the older term's token the row held
   * @param token the token of this transaction's term, which the row now holds
   */
  public TermBeganException(String office, long earlierToken, long token) {
    super(
        "The term of office '"
            + office
            + "' with token "
            + token
            + " began while this transaction ran: its fence raised the office's row from token "
            + earlierToken
            + " after the transaction began, so what it read may predate the older term's last"
            + " commits. Nothing of it commits; run it again (or fence first: @Fenced on a method"
            + " that begins the transaction).");
    this.office = office;
    this.earlierToken = earlierToken;
    this.token = token;
  }

  /** The office. */
  public String office() {
    return this.office;
  }

  /** The older term's token that the row held before the raise. */
  public long earlierToken() {
    return this.earlierToken;
  }

  /** This transaction's term's token. */
  public long token() {
    return this.token;
  }
}
