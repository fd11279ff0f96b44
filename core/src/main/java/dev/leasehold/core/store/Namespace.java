package dev.leasehold.core.store;

import dev.leasehold.core.lease.LeaseNames;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Keeps several services on one store apart. Every name a service hands the store (a job's lease,
 * its history records, its pause, the self-check's scratch names, the history prune's lease) is
 * stored as {@value #ROOT}{@code <namespace>.<name>}, and only the names under the service's own
 * namespace come back, with the prefix taken off. The stored form is itself a valid lease name, so
 * every store keeps it as it keeps any other name: no adapter knows about namespaces. Without a
 * namespace ({@link #NONE}) names are stored as they are, as they always were, and only the names
 * of namespaced services are left out of what comes back.
 *
 * <p>A namespace is 1 to {@value #MAX_LENGTH} characters, lower-case letters, digits and {@code -},
 * starting with a letter or digit. Since a stored name is at most {@link LeaseNames#MAX_LENGTH}
 * characters, a name in a namespace is at most {@link #maxNameLength()}.
 */
public final class Namespace {
  /** Every namespaced stored name starts with this; {@code _leasehold.} is never a job's. */
  public static final String ROOT = "_leasehold.ns.";

  public static final int MAX_LENGTH = 40;
  private static final Pattern VALID =
      Pattern.compile("[a-z0-9][a-z0-9-]{0," + (MAX_LENGTH - 1) + "}");

  /** No namespace: today's layout. */
  public static final Namespace NONE = new Namespace(null);

  private final String value;
  private final String prefix;

  private Namespace(String value) {
    this.value = value;
    this.prefix = value == null ? "" : ROOT + value + ".";
  }

  /** The namespace {@code value}, or {@link #NONE} when it is {@code null}. */
  public static Namespace of(String value) {
    if (value == null) {
      return NONE;
    }
    String problem = problem(value);
    if (problem != null) {
      throw new IllegalArgumentException("namespace " + problem);
    }
    return new Namespace(value);
  }

  /** Why {@code value} is not a namespace, or {@code null} when it is one. */
  public static String problem(String value) {
    if (value == null || !VALID.matcher(value).matches()) {
      return "must be 1 to "
          + MAX_LENGTH
          + " characters of a-z, 0-9 and '-', starting with a letter or digit, got '"
          + value
          + "'";
    }
    return null;
  }

  /** The namespace, empty for {@link #NONE}. */
  public Optional<String> value() {
    return Optional.ofNullable(value);
  }

  /** The longest name this namespace can hold. */
  public int maxNameLength() {
    return LeaseNames.MAX_LENGTH - prefix.length();
  }

  /** Why {@code name} cannot be used in this namespace, or {@code null} when it can. */
  public String nameProblem(String name) {
    String problem = LeaseNames.problem(name);
    if (problem == null && name.length() > maxNameLength()) {
      problem =
          "must be at most "
              + maxNameLength()
              + " characters in namespace '"
              + value
              + "', got "
              + name.length();
    }
    return problem;
  }

  /** The name as stored; throws {@link IllegalArgumentException} when it cannot be stored. */
  public String toStore(String name) {
    if (value == null) {
      return name; // the store checks it, as it always did
    }
    String problem = nameProblem(name);
    if (problem != null) {
      throw new IllegalArgumentException("lease name " + problem);
    }
    return prefix + name;
  }

  /** The name a stored name has in this namespace; empty when it belongs to no or another one. */
  public Optional<String> fromStore(String stored) {
    if (stored == null) {
      return Optional.empty();
    }
    if (value == null) {
      return stored.startsWith(ROOT) ? Optional.empty() : Optional.of(stored);
    }
    return stored.startsWith(prefix) && stored.length() > prefix.length()
        ? Optional.of(stored.substring(prefix.length()))
        : Optional.empty();
  }

  /** The longest node id a store keeps (the SQL column); a namespace's prefix takes its part. */
  public static final int MAX_NODE_STORED = 200;

  /** The longest node id this namespace can keep. */
  public int maxNodeLength() {
    return MAX_NODE_STORED - prefix.length();
  }

  /**
   * A node record's id as stored: the prefix and the id. Node ids are not lease names (a host name
   * may hold any character), so only their length is checked: by the configuration, against {@link
   * #maxNodeLength}.
   */
  public String nodeToStore(String nodeId) {
    return prefix + nodeId;
  }

  /** {@code backend} seeing this namespace only. */
  public StoreBackend wrap(StoreBackend backend) {
    return new NamespacedBackend(backend, this);
  }

  /** {@code factory} opening backends that see this namespace only. */
  public StoreFactory wrap(StoreFactory factory) {
    return NamespacedBackend.factory(factory, this);
  }

  @Override
  public String toString() {
    return value == null ? "(none)" : value;
  }
}
