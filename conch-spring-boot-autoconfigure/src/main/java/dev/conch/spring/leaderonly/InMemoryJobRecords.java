package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.ToLongFunction;

/**
 * Job records in memory, for the in-memory offices (standalone mode and the test kit), with the
 * same two compares as in etcd: the writing term's token must be the office's current token, and
 * the record must be at the revision its writer read. Revisions count writes, from 1.
 */
public final class InMemoryJobRecords implements JobRecords {

  private final ToLongFunction<String> currentToken;

  private final Map<String, Versioned> records = new HashMap<>();

  private long revision;

  /**
   * @param currentToken the token of whoever leads an office now, 0 when vacant: the fence
   */
  public InMemoryJobRecords(ToLongFunction<String> currentToken) {
    this.currentToken = currentToken;
  }

  @Override
  public synchronized Optional<Versioned> read(String office, String job) {
    return Optional.ofNullable(this.records.get(office + "/" + job));
  }

  @Override
  public synchronized OptionalLong write(Leadership term, JobRecord record, long expected) {
    String key = record.office() + "/" + record.job();
    Versioned current = this.records.get(key);
    long at = (current != null) ? current.revision() : 0;
    if (this.currentToken.applyAsLong(term.office()) != term.token() || at != expected) {
      return OptionalLong.empty();
    }
    this.revision++;
    this.records.put(key, new Versioned(record, this.revision));
    return OptionalLong.of(this.revision);
  }

  /** Forgets every record: what a new test starts from. */
  public synchronized void clear() {
    this.records.clear();
  }
}
