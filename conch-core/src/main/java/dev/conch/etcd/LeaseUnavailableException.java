package dev.conch.etcd;

import dev.conch.EtcdUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * The session could not get a lease from etcd in time, or can never get one (its client is closed):
 * a failure of the session, the same for every office that waited for it, said once for all of them
 * ({@link CampaignFailureLog}).
 */
final class LeaseUnavailableException extends EtcdUnavailableException {

  LeaseUnavailableException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
