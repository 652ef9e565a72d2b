package dev.conch.sample;

import java.time.Instant;

/**
 * One run of the report job, stamped with the fencing token of the leader that made it.
 *
 * @param number how many reports this instance has made, counting from 1
 * @param by the candidate id of the instance that made it
 * @param token the fencing token of the term it was made in
 * @param at when it was made
 * @param stored whether the fenced write accepted it (false: this instance no longer led)
 */
public record Report(long number, String by, long token, Instant at, boolean stored) {

  /** The same report, with whether the fenced write accepted it. */
  Report stored(boolean accepted) {
    return new Report(number, by, token, at, accepted);
  }

  /** The value the fenced write stores: small JSON, written by hand as there are four fields. */
  String toJson() {
    return "{\"report\":"
        + number
        + ",\"by\":\""
        + by.replace("\\", "\\\\").replace("\"", "\\\"")
        + "\",\"token\":"
        + token
        + ",\"at\":\""
        + at
        + "\"}";
  }
}
