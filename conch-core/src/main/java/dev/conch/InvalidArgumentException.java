package dev.conch;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A bad setting or argument: the message names the setting, the bad value and what would be
 * accepted. Nothing was started when it is thrown.
 *
 * <p>conch-core refuses a {@link Setting} under its canonical name; the CLI and the Spring
 * properties rename the refusal to their spelling of it ({@link #named(String)}) and keep the
 * setting, so that code never matches a refusal by its name.
 */
public class InvalidArgumentException extends IllegalArgumentException {

  private final @Nullable Setting<?> setting;
  private final boolean renamed;
  private final String name;
  private final @Nullable Object value;
  private final String accepted;

  /** Creates the exception for {@code setting} with the bad {@code value}. */
  public InvalidArgumentException(Setting<?> setting, @Nullable Object value, String accepted) {
    this(setting, false, setting.name(), value, accepted);
  }

  /**
   * Creates the exception for {@code name}, which is no {@link Setting} of conch-core (a Spring
   * property or a bean of its own, a command-line argument).
   */
  public InvalidArgumentException(String name, @Nullable Object value, String accepted) {
    this(null, false, name, value, accepted);
  }

  private InvalidArgumentException(
      @Nullable Setting<?> setting,
      boolean renamed,
      String name,
      @Nullable Object value,
      String accepted) {
    super("invalid " + name + " '" + value + "': " + accepted);
    this.setting = setting;
    this.renamed = renamed;
    this.name = name;
    this.value = value;
    this.accepted = accepted;
  }

  /**
   * The same refusal under {@code name}, the user's spelling of the setting (a flag, a property);
   * its cause is this one.
   */
  public InvalidArgumentException named(String name) {
    InvalidArgumentException named =
        new InvalidArgumentException(setting, true, name, value, accepted);
    named.initCause(this);
    return named;
  }

  /** The setting refused, when it is one of conch-core's. */
  public Optional<Setting<?>> setting() {
    return Optional.ofNullable(setting);
  }

  /** Whether {@link #named(String)} made this refusal: it names the user's spelling already. */
  public boolean isRenamed() {
    return renamed;
  }

  /**
   * The name of the setting or argument as this refusal spells it: the setting's own name, or the
   * name it was given by {@link #named(String)}.
   */
  public String name() {
    return name;
  }

  /** The value that was refused; {@code null} when none was given. */
  public @Nullable Object value() {
    return value;
  }

  /** What would be accepted. */
  public String accepted() {
    return accepted;
  }
}
