package dev.conch;

/**
 * One term of leadership of one office by this candidate: what acquire and lose hooks receive.
 *
 * @param office the office
 * @param token the fencing token: the create revision of this candidate's key; it grows strictly
 *     with each new leader of the office
 * @param lease the lease of the key
 * @param holder this candidate as stored in the key
 */
public record Leadership(String office, long token, long lease, Holder holder) {

  /** The lease as etcd shows it: lowercase hex, unpadded ({@code CONCH_LEASE}). */
  public String leaseHex() {
    return Long.toHexString(lease);
  }
}
