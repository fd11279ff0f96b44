package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.LeaseNames;

/**
 * Key layout: {@code <prefix>{<name>}:lease}, {@code <prefix>{<name>}:meta}, {@code
 * <prefix>{<name>}:fence} (high-water mark) and {@code <prefix>{<name>}:history}; node records
 * {@link #node}; journal streams and keys {@link #journal}, {@link #journalKey}. The braces are a
 * Cluster hash tag, so all keys of one name hash to one slot and a script may touch them together.
 * Names are validated ({@code [A-Za-z0-9._-]}), so they never contain a brace or a glob character.
 */
public record LeaseKeys(String prefix) {
  static final String DEFAULT_PREFIX = "lh:";
  private static final String META = ":meta";
  private static final String HISTORY = ":history";
  private static final String NODE = ":node";

  /** Why {@code prefix} cannot be a key prefix, or null. */
  public static String problem(String prefix) {
    if (prefix.length() > 100) {
      return "must be at most 100 characters";
    }
    if (prefix.chars().anyMatch(c -> c == '{' || c == '}' || Character.isWhitespace(c))) {
      return "must not contain braces or whitespace (braces would break the hash tag)";
    }
    return null;
  }

  public static LeaseKeys of(String prefix) {
    String p = prefix == null || prefix.isEmpty() ? DEFAULT_PREFIX : prefix;
    String problem = problem(p);
    if (problem != null) {
      throw new IllegalArgumentException("store.key-prefix " + problem);
    }
    return new LeaseKeys(p);
  }

  /**
   * The lease key, the meta hash and the high-water hash of {@code name}, as the scripts take them.
   */
  public String[] lease(String name) {
    return new String[] {prefix + "{" + name + "}:lease", meta(name), highWater(name)};
  }

  /**
   * {@code <prefix>{<name>}:fence}: the highest fence and watermark given, kept apart from the meta
   * hash so that deleting that by hand sends neither back.
   */
  public String highWater(String name) {
    return prefix + "{" + name + "}:fence";
  }

  public String meta(String name) {
    return prefix + "{" + name + "}" + META;
  }

  public String history(String job) {
    return prefix + "{" + job + "}" + HISTORY;
  }

  public String metaPattern() {
    return glob(prefix) + "{*}" + META;
  }

  public String historyPattern() {
    return glob(prefix) + "{*}" + HISTORY;
  }

  /** The name inside a key found by SCAN, or null when the key is not one of ours. */
  public String nameOf(String key, boolean history) {
    String suffix = "}" + (history ? HISTORY : META);
    if (!key.startsWith(prefix + "{") || !key.endsWith(suffix)) {
      return null;
    }
    String name = key.substring(prefix.length() + 1, key.length() - suffix.length());
    return LeaseNames.isValid(name) ? name : null;
  }

  /**
   * A node record: {@code <prefix>{node.<hex of the node id>}:node}, one slot per node (the id in
   * hex, since a node id may hold any character).
   */
  String node(String nodeId) {
    return prefix
        + "{node."
        + java.util.HexFormat.of()
            .formatHex(nodeId.getBytes(java.nio.charset.StandardCharsets.UTF_8))
        + "}"
        + NODE;
  }

  String nodePattern() {
    return glob(prefix) + "{node.*}" + NODE;
  }

  private static String glob(String literal) {
    return literal.replaceAll("([\\\\*?\\[\\]^])", "\\\\$1");
  }

  /**
   * A journal stream: {@code <prefix>{journal.<stream>}:journal}, a sorted set whose members are an
   * entry's id followed by its body, all of score 0, so they sort by id.
   */
  String journal(String stream) {
    return prefix + "{journal." + stream + "}:journal";
  }

  /** A write-once journal key: {@code <prefix>{journal-key.<key>}:value}. */
  String journalKey(String key) {
    return prefix + "{journal-key." + key + "}:value";
  }
}
