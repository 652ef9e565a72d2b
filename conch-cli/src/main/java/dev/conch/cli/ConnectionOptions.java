package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.cli.logging.StderrLogging;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.SessionOptions;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** The flags every form of {@code conch elect} takes: where etcd is, how to log in, the layout. */
final class ConnectionOptions {

  /** The endpoints when neither --endpoints nor $CONCH_ENDPOINTS says otherwise. */
  static final String DEFAULT_ENDPOINTS = "http://127.0.0.1:2379";

  /**
   * The bound of the connect and of every single etcd call: long enough for a busy cluster, short
   * enough that an unreachable etcd is reported (exit 69) within seconds, never a hang.
   */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(3);

  @Option(
      names = "--endpoints",
      paramLabel = "URLS",
      description =
          "etcd endpoints, comma-separated (default: $CONCH_ENDPOINTS, else "
              + DEFAULT_ENDPOINTS
              + ")")
  @Nullable String endpoints;

  @Option(
      names = "--ttl",
      paramLabel = "D",
      defaultValue = "15s", // ExternalCommandRunner.DEFAULT_TTL (FlagsTest)
      converter = DurationConverter.class,
      description = "lease TTL, whole seconds, at least 2s (default: ${DEFAULT-VALUE})")
  Duration ttl;

  @Option(
      names = "--prefix",
      paramLabel = "KEY",
      defaultValue = SessionOptions.DEFAULT_PREFIX,
      description = "key prefix of elections (default: ${DEFAULT-VALUE})")
  String prefix;

  @Option(
      names = {"-q", "--quiet"},
      description = "no log lines on stderr but errors")
  boolean quiet;

  @Option(
      names = "--json",
      description = "print JSON (one object per line); log lines on stderr are JSON too")
  boolean json;

  @Option(names = "--user", paramLabel = "NAME", description = "etcd user name")
  @Nullable String user;

  @Option(
      names = "--password",
      paramLabel = "TEXT",
      description = "etcd password (default: $CONCH_PASSWORD)")
  @Nullable String password;

  @Option(names = "--cacert", paramLabel = "FILE", description = "CA bundle (PEM) to verify etcd")
  @Nullable Path cacert;

  @Option(
      names = "--cert",
      paramLabel = "FILE",
      description = "client certificate (PEM), with --key")
  @Nullable Path cert;

  @Option(
      names = "--key",
      paramLabel = "FILE",
      description = "client private key (PEM, PKCS#8), with --cert")
  @Nullable Path key;

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  private @Nullable List<URI> uris;

  /** Checks every value; throws {@link UsageException} or {@code InvalidArgumentException}. */
  void validate() {
    uris = EtcdClients.parseEndpoints(endpointsText());
    try {
      Setting.TTL.require(ttl);
    } catch (InvalidArgumentException e) {
      throw new UsageException("invalid --ttl '" + given("--ttl") + "': " + e.accepted());
    }
    sessionOptions();
    if (password != null && (user == null || user.isEmpty())) {
      throw new UsageException("--password needs --user");
    }
    if ((cert == null) != (key == null)) {
      throw new UsageException("--cert and --key go together: give both or neither");
    }
    requireReadable("--cacert", cacert);
    requireReadable("--cert", cert);
    requireReadable("--key", key);
  }

  /** The endpoints as given (or defaulted), for messages and for parsing. */
  String endpointsText() {
    return endpointsText(endpoints);
  }

  /** {@code given}, else {@code $CONCH_ENDPOINTS}, else {@link #DEFAULT_ENDPOINTS}. */
  static String endpointsText(@Nullable String given) {
    if (given != null) {
      return given;
    }
    String env = System.getenv("CONCH_ENDPOINTS");
    return env == null || env.isBlank() ? DEFAULT_ENDPOINTS : env.trim();
  }

  /** {@code given}, else {@code $CONCH_PASSWORD} (null when neither). */
  static @Nullable String password(@Nullable String given) {
    return given != null ? given : System.getenv("CONCH_PASSWORD");
  }

  /** The read form {@code form} with these flags; {@link #validate()} has passed. */
  ReadRequest readRequest(ReadRequest.Form form, String office, long minRev, int terms) {
    return new ReadRequest(
        form,
        office,
        sessionOptions(),
        json,
        quiet,
        minRev,
        terms,
        List.copyOf(uris),
        user,
        password(password),
        cacert,
        cert,
        key);
  }

  /** The session: the given prefix and TTL, every call bounded by {@link #CALL_TIMEOUT}. */
  SessionOptions sessionOptions() {
    return SessionOptions.defaults().withPrefix(prefix).withTtl(ttl).withTimeout(CALL_TIMEOUT);
  }

  /** A client for the endpoints; connects lazily, on the first call. */
  Client connect() {
    return connect(
        Objects.requireNonNull(uris, "validate() first"),
        user,
        password(password),
        cacert,
        cert,
        key);
  }

  /** A client for the read form's endpoints, where etcd's JSON gateway cannot serve it. */
  static Client connect(ReadRequest read) {
    return connect(
        read.endpoints(), read.user(), read.password(), read.cacert(), read.cert(), read.key());
  }

  private static Client connect(
      List<URI> uris,
      @Nullable String user,
      @Nullable String password,
      @Nullable Path cacert,
      @Nullable Path cert,
      @Nullable Path key) {
    StderrLogging.quietJavaUtilLogging();
    ClientBuilder builder = EtcdClients.builder(uris, CALL_TIMEOUT);
    builder = EtcdClients.withCredentials(builder, user, password);
    return EtcdClients.withTls(builder, ssl(cacert, cert, key)).build();
  }

  /** Says which etcd could not be reached, for the exit-69 message. */
  String describeEndpoints() {
    return uris == null
        ? endpointsText()
        : uris.stream().map(URI::toString).collect(Collectors.joining(","));
  }

  /** The text given for {@code flag}, as typed (a parsed duration prints differently). */
  private String given(String flag) {
    OptionSpec option = mixee.findOption(flag);
    return option == null || option.originalStringValues().isEmpty()
        ? option == null ? "?" : option.defaultValue()
        : option.originalStringValues().get(option.originalStringValues().size() - 1);
  }

  private static @Nullable SslContext ssl(
      @Nullable Path cacert, @Nullable Path cert, @Nullable Path key) {
    if (cacert == null && cert == null) {
      return null;
    }
    try {
      SslContextBuilder builder = GrpcSslContexts.forClient();
      if (cacert != null) {
        builder.trustManager(cacert.toFile());
      }
      if (cert != null) {
        // validate() and the quick parser refuse a --cert without --key.
        builder.keyManager(cert.toFile(), Objects.requireNonNull(key, "--key").toFile());
      }
      return builder.build();
    } catch (Exception | LinkageError e) {
      throw invalidTlsFiles(e);
    }
  }

  /** The usage error of TLS files that cannot be read, with the formats accepted. */
  static UsageException invalidTlsFiles(Throwable e) {
    return new UsageException(
        "invalid TLS files (--cacert, --cert, --key): "
            + e.getMessage()
            + "; certificates must be PEM and the key PEM PKCS#8 (convert with: openssl pkcs8"
            + " -topk8 -nocrypt -in key.pem -out key8.pem)");
  }

  private static void requireReadable(String flag, @Nullable Path file) {
    if (file != null && !(Files.isRegularFile(file) && Files.isReadable(file))) {
      throw new UsageException("invalid " + flag + " '" + file + "': not a readable file");
    }
  }

  /** Converts a duration flag; picocli names the flag, the message says what is accepted. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse("duration", value);
      } catch (InvalidArgumentException e) {
        throw new TypeConversionException("'" + value + "' is not " + e.accepted());
      }
    }
  }
}
