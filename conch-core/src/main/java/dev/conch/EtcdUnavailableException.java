package dev.conch;

import org.jspecify.annotations.Nullable;

/** etcd could not be reached, or did not answer in time, or has no quorum. */
public class EtcdUnavailableException extends ConchException {

  /** Creates the exception with a message naming what was asked and of whom. */
  public EtcdUnavailableException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
