package dev.leasehold.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The errors of one file, gathered so that {@code validate} (and a refused reload) reports all of
 * them at once, one line each, instead of the first only. A part of the file whose error is
 * gathered is read as absent by what comes after it, so one mistake is reported once, where it is
 * written.
 */
final class ConfigErrors {
  /** A step of reading that may fail. */
  @FunctionalInterface
  interface Step {
    void run() throws ConfigException;
  }

  /** A step of reading that gives a value and may fail. */
  @FunctionalInterface
  interface Value<T> {
    T get() throws ConfigException;
  }

  private final List<ConfigException> errors = new ArrayList<>();

  void add(ConfigException e) {
    errors.addAll(e.all());
  }

  /** Runs {@code step}, keeping its error. */
  void collect(Step step) {
    try {
      step.run();
    } catch (ConfigException e) {
      add(e);
    }
  }

  /** The value {@code value} gives, or empty when it failed (its error kept). */
  <T> Optional<T> read(Value<T> value) {
    try {
      return Optional.ofNullable(value.get());
    } catch (ConfigException e) {
      add(e);
      return Optional.empty();
    }
  }

  boolean isEmpty() {
    return errors.isEmpty();
  }

  /** Throws every error gathered, as one exception, when there is one. */
  void throwIfAny() throws ConfigException {
    if (!errors.isEmpty()) {
      throw ConfigException.all(errors);
    }
  }
}
