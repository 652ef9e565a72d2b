package dev.conch.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Gives every etcd call but a watch a gRPC deadline. jetcd sends its calls with none, so a call
 * that conch stopped waiting for would otherwise stay alive in gRPC and reach etcd whenever the
 * connection comes back (a lease grant made during an outage, a guarded write reported as failed).
 * With the deadline the RPC itself ends, on the client and, through the {@code grpc-timeout}
 * header, on the server. Watches are long-lived by design; they are re-created by conch instead.
 */
final class CallDeadlines implements ClientInterceptor {

  private static final String WATCH = "etcdserverpb.Watch/Watch";

  private final long timeoutNanos;

  CallDeadlines(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    if (options.getDeadline() == null && !WATCH.equals(method.getFullMethodName())) {
      options = options.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS);
    }
    return next.newCall(method, options);
  }
}
