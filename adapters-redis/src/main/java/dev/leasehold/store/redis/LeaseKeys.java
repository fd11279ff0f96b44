package dev.leasehold.store.redis;

import dev.leasehold.core.lease.LeaseNames;

/**
 * Key layout: {@code <prefix>{<name>}:lease}, {@code <prefix>{<name>}:meta} and {@code
 * <prefix>{<name>}:history}. The braces are a Cluster hash tag, so all keys of one name hash to one
 * slot and a script may touch them together. Names are validated ({@code [A-Za-z0-9._-]}), so they
 * never contain a brace or a glob character.
 */
record LeaseKeys(String prefix) {
  static final String DEFAULT_PREFIX = "lh:";
  private static final String META = ":meta";
  private static final String HISTORY = ":history";

  /** Why {@code prefix} cannot be a key prefix, or null. */
  static String problem(String prefix) {
    if (prefix.length() > 100) {
      return "must be at most 100 characters";
    }
    if (prefix.chars().anyMatch(c -> c == '{' || c == '}' || Character.isWhitespace(c))) {
      return "must not contain braces or whitespace (braces would break the hash tag)";
    }
    return null;
  }

  static LeaseKeys of(String prefix) {
    String p = prefix == null || prefix.isEmpty() ? DEFAULT_PREFIX : prefix;
    String problem = problem(p);
    if (problem != null) {
      throw new IllegalArgumentException("store.key-prefix " + problem);
    }
    return new LeaseKeys(p);
  }

  String[] lease(String name) {
    return new String[] {prefix + "{" + name + "}:lease", meta(name)};
  }

  String meta(String name) {
    return prefix + "{" + name + "}" + META;
  }

  String history(String job) {
    return prefix + "{" + job + "}" + HISTORY;
  }

  String metaPattern() {
    return glob(prefix) + "{*}" + META;
  }

  String historyPattern() {
    return glob(prefix) + "{*}" + HISTORY;
  }

  /** The name inside a key found by SCAN, or null when the key is not one of ours. */
  String nameOf(String key, boolean history) {
    String suffix = "}" + (history ? HISTORY : META);
    if (!key.startsWith(prefix + "{") || !key.endsWith(suffix)) {
      return null;
    }
    String name = key.substring(prefix.length() + 1, key.length() - suffix.length());
    return LeaseNames.isValid(name) ? name : null;
  }

  private static String glob(String literal) {
    return literal.replaceAll("([\\\\*?\\[\\]^])", "\\\\$1");
  }
}
