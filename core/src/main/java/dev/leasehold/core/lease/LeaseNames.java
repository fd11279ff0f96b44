package dev.leasehold.core.lease;

import java.util.regex.Pattern;

/**
 * The one rule for lease and job names: {@code [A-Za-z0-9._-]}, 1 to 100 characters. Names are
 * checked before they become keys, rows or documents, so no store has to escape them.
 */
public final class LeaseNames {
  public static final int MAX_LENGTH = 100;
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_LENGTH + "}");

  private LeaseNames() {}

  public static boolean isValid(String name) {
    return name != null && VALID.matcher(name).matches();
  }

  /** Why {@code name} is not a valid name, or {@code null} when it is. */
  public static String problem(String name) {
    if (name == null) {
      return "must not be null";
    }
    if (name.isEmpty()) {
      return "must not be empty";
    }
    if (name.length() > MAX_LENGTH) {
      return "must be at most " + MAX_LENGTH + " characters, got " + name.length();
    }
    if (!VALID.matcher(name).matches()) {
      return "may contain only letters, digits, '.', '_' and '-'";
    }
    return null;
  }

  /** Returns {@code name} when valid, else throws {@link IllegalArgumentException}. */
  public static String require(String name) {
    String problem = problem(name);
    if (problem != null) {
      throw new IllegalArgumentException("lease name " + problem);
    }
    return name;
  }
}
