package dev.conch.spring.boot.autoconfigure.leaderonly;

import dev.conch.Leadership;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.JobRecords;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The application's job records, wrapped: every write and whether the store took it, and a pause
 * before the next claim that stands for a process frozen between its leadership check and its
 * claim, and a pause in the next read that stands for a slow store.
 */
final class RecordingJobRecords implements JobRecords {

  private final JobRecords delegate;

  final List<Write> writes = new CopyOnWriteArrayList<>();

  private volatile CountDownLatch pause;

  private volatile boolean paused;

  private volatile CountDownLatch readPause;

  private volatile Thread pausedReader;

  RecordingJobRecords(JobRecords delegate) {
    this.delegate = delegate;
  }

  @Override
  public Optional<Versioned> read(String office, String job) {
    CountDownLatch latch = this.readPause;
    if (latch != null) {
      this.readPause = null;
      this.pausedReader = Thread.currentThread();
      try {
        latch.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    }
    return this.delegate.read(office, job);
  }

  @Override
  public OptionalLong write(Leadership term, JobRecord record, long revision) {
    CountDownLatch latch = this.pause;
    boolean interrupted = false;
    if (latch != null && record.outcome() == JobRecord.Outcome.RUNNING) {
      this.paused = true;
      // Frozen: deaf to the interrupt of its term's stop until it thaws, and then it sends the
      // claim it was about to send; etcd's refusal is what must stop it.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (latch.getCount() > 0 && System.nanoTime() < deadline) {
        try {
          latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
          interrupted = true;
        }
      }
      this.pause = null;
    }
    try {
      OptionalLong written = this.delegate.write(term, record, revision);
      this.writes.add(new Write(record, written.isPresent()));
      return written;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Holds the next read (a slow store) until {@code latch} is counted down. */
  void pauseNextRead(CountDownLatch latch) {
    this.readPause = latch;
  }

  /** The thread that the paused read holds, once it came. */
  Thread pausedReader() {
    return this.pausedReader;
  }

  /** Holds the next claim until {@link #resume}. */
  void pauseNextClaim() {
    this.pause = new CountDownLatch(1);
  }

  boolean paused() {
    return this.paused;
  }

  void resume() {
    CountDownLatch latch = this.pause;
    if (latch != null) {
      latch.countDown();
    }
  }

  /** The claims the store took (a firing starts), in order. */
  List<JobRecord> claims() {
    return this.writes.stream()
        .filter(w -> w.taken() && w.record().outcome() == JobRecord.Outcome.RUNNING)
        .map(Write::record)
        .toList();
  }

  /** The writes the store refused. */
  List<JobRecord> refused() {
    return this.writes.stream().filter(w -> !w.taken()).map(Write::record).toList();
  }

  record Write(JobRecord record, boolean taken) {}
}
