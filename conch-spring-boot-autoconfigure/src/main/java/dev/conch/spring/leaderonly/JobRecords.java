package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where the last firing of each {@code @Scheduled} {@link LeaderOnly @LeaderOnly} job is kept: in
 * etcd ({@link EtcdJobRecords}), or in memory for the in-memory offices ({@link
 * InMemoryJobRecords}). A write is fenced twice: it happens only while the writing term's token is
 * still the office's, and only when the record is still at the revision its writer read, so that
 * two terms, or two runs of one term, can never both claim one firing.
 */
public interface JobRecords {

  /**
   * The last firing of {@code job} in {@code office}, with the revision to write against.
   *
   * @throws dev.conch.EtcdUnavailableException when the store cannot be read in time
   */
  Optional<Versioned> read(String office, String job);

  /**
   * Writes {@code record} if {@code term} still holds its office in the store and the record is
   * still at {@code revision} (0: there is none yet).
   *
   * @return the record's new revision, or empty when either compare failed
   * @throws dev.conch.EtcdUnavailableException when the store cannot be reached in time
   */
  OptionalLong write(Leadership term, JobRecord record, long revision);

  /**
   * A record as read, and its revision in the store.
   *
   * @param record the record
   * @param revision its revision (etcd: the key's mod revision)
   */
  record Versioned(JobRecord record, long revision) {}
}
