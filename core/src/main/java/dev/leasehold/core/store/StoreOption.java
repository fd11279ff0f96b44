package dev.leasehold.core.store;

import dev.leasehold.core.schedule.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One key of {@code store.options} that a store declares ({@link StoreFactory#options()}): its
 * name, how its text is parsed and checked, its default and its meaning. The store reads the option
 * through it, and every problem names the key where it is written, {@code store.options.<name>}.
 *
 * @param name the key under {@code store.options}, kebab-case
 * @param parser the value from its text; throws {@link IllegalArgumentException} with the problem
 *     (without the key) for a text it does not accept
 * @param defaultValue the value when the option is absent
 * @param defaultText the default as the documentation writes it
 * @param description what it does, one sentence
 */
public record StoreOption<T>(
    String name,
    Function<String, T> parser,
    T defaultValue,
    String defaultText,
    String description) {

  /** Where every store option is written in the configuration file. */
  public static final String PATH = "store.options.";

  public StoreOption {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(parser, "parser");
  }

  /** A whole number from 1 to 999999999, e.g. {@code history-max}. */
  public static StoreOption<Long> positiveWholeNumber(
      String name, long defaultValue, String description) {
    return new StoreOption<>(
        name,
        text -> {
          if (!text.matches("[1-9][0-9]{0,8}")) {
            throw new IllegalArgumentException("expected a positive whole number, got " + text);
          }
          return Long.parseLong(text);
        },
        defaultValue,
        String.valueOf(defaultValue),
        description);
  }

  /**
   * A whole number from {@code min} to {@code max}.
   *
   * @param what what the number counts, as the error says it: "a whole number {what}from 0 to 99"
   */
  public static StoreOption<Integer> wholeNumber(
      String name, String what, int min, int max, int defaultValue, String description) {
    return new StoreOption<>(
        name,
        text -> {
          int n;
          try {
            n = Integer.parseInt(text.strip());
          } catch (NumberFormatException e) {
            n = min - 1;
          }
          if (n < min || n > max) {
            throw new IllegalArgumentException(
                "expected a whole number " + what + "from " + min + " to " + max + ", got " + text);
          }
          return n;
        },
        defaultValue,
        String.valueOf(defaultValue),
        description);
  }

  /** A duration such as {@code 30s} from {@code min} to {@code max}. */
  public static StoreOption<Duration> duration(
      String name,
      Duration min,
      Duration max,
      String range,
      Duration defaultValue,
      String description) {
    return new StoreOption<>(
        name,
        text -> {
          Duration d;
          try {
            d = Durations.parse(text);
          } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                "expected a duration such as " + Durations.format(defaultValue) + ", got " + text);
          }
          if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException("expected " + range + ", got " + text);
          }
          return d;
        },
        defaultValue,
        Durations.format(defaultValue),
        description);
  }

  /** {@code store.options.<name>}: where the option is written. */
  public String path() {
    return PATH + name;
  }

  /** Why the option as given cannot be used, naming {@link #path()}; null when absent or good. */
  public String problem(StoreSettings settings) {
    String text = settings.options().get(name);
    if (text == null) {
      return null;
    }
    try {
      parser.apply(text);
      return null;
    } catch (IllegalArgumentException e) {
      return path() + ": " + e.getMessage();
    }
  }

  /**
   * The option's value, its default when absent.
   *
   * @throws IllegalArgumentException naming {@link #path()} when the text is not accepted
   */
  public T value(StoreSettings settings) {
    String text = settings.options().get(name);
    if (text == null) {
      return defaultValue;
    }
    try {
      return parser.apply(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(path() + ": " + e.getMessage(), e);
    }
  }

  /** The first problem of any of {@code options} in {@code settings}, or null. */
  public static String problem(List<StoreOption<?>> options, StoreSettings settings) {
    for (StoreOption<?> option : options) {
      String problem = option.problem(settings);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }
}
