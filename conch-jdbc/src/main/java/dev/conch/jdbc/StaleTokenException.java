package dev.conch.jdbc;

import dev.conch.ConchException;

/**
 * The fence refused a write: the office's row in the fence table holds a newer token than the one
 * offered, so a newer leader has fenced (or is fencing) this office and the offered token is stale.
 * The caller's transaction must roll back; nothing it wrote may commit.
 *
 * <p>A {@link RuntimeException} (conch's own {@link ConchException}), so that a Spring
 * {@code @Transactional} method rolls back on it by default; a Spring {@code DataAccessException}
 * translation belongs to the Spring modules.
 */
public class StaleTokenException extends ConchException {

  private final String office;
  private final long token;
  private final long currentToken;
  private final String currentHolder;

  /**
   * Creates the exception.
   *
   * @param office the office
   * @param token the token that was offered and refused
   * @param currentToken the newer token the fence table holds
   * @param currentHolder the holder stored with the newer token, or {@code null} when unknown
   */
  public StaleTokenException(String office, long token, long currentToken, String currentHolder) {
    super(
        "stale fencing token "
            + token
            + " for office '"
            + office
            + "': the fence holds token "
            + currentToken
            + (currentHolder == null ? "" : " of holder '" + currentHolder + "'")
            + "; a newer leader took over, roll this transaction back");
    this.office = office;
    this.token = token;
    this.currentToken = currentToken;
    this.currentHolder = currentHolder;
  }

  /** The office. */
  public String office() {
    return office;
  }

  /** The token that was offered and refused. */
  public long token() {
    return token;
  }

  /** The newer token that the fence table holds for the office. */
  public long currentToken() {
    return currentToken;
  }

  /** The holder stored with the newer token, or {@code null} when unknown. */
  public String currentHolder() {
    return currentHolder;
  }
}
