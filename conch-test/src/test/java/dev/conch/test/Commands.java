package dev.conch.test;

import java.time.Duration;

/** etcdctl calls shared by the tests, with short etcd-side timeouts so failures come fast. */
final class Commands {

  private static final Duration OUTER_TIMEOUT = Duration.ofSeconds(10);

  private Commands() {}

  static Etcdctl.Result put(String endpoints, String key, String value) {
    return Etcdctl.run(
        endpoints, OUTER_TIMEOUT, "--dial-timeout=1s", "--command-timeout=1s", "put", key, value);
  }

  static Etcdctl.Result get(String endpoints, String key) {
    return Etcdctl.run(
        endpoints,
        OUTER_TIMEOUT,
        "--dial-timeout=1s",
        "--command-timeout=1s",
        "get",
        "--print-value-only",
        key);
  }
}
