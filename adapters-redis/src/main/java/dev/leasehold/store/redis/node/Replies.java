package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.LeaseStoreException;
import java.util.List;

/**
 * Checks that a script's reply has the shape and values the script returns on a real Redis, before
 * anything is decided from it. A server that only looks compatible (a proxy, a cache that runs no
 * or other Lua, a scripted fake) can answer {@code OK} to a claim it never applied, or reply in
 * another shape; read loosely, such an answer could become a lease that two replicas both hold.
 * Every mismatch is a {@link LeaseStoreException} naming the step and what the server answered: not
 * acquired, fail closed.
 */
public final class Replies {
  private static final int SHOWN = 120;

  private Replies() {}

  /** A store error: {@code where} (node and step) got {@code reply}, which is wrong because... */
  static LeaseStoreException wrong(String where, Object reply, String why) {
    return new LeaseStoreException(
        where
            + ": the server answered "
            + show(reply)
            + ", "
            + why
            + "; not acquired (this server does not run Leasehold's scripts as Redis does)");
  }

  /** An array reply of exactly {@code size} elements (any size when {@code size} is negative). */
  public static List<?> array(String where, Object reply, int size) {
    if (!(reply instanceof List<?> list)) {
      throw wrong(where, reply, "expected an array");
    }
    if (size >= 0 && list.size() != size) {
      throw wrong(where, reply, "expected an array of " + size + " elements");
    }
    return list;
  }

  public static long integer(String where, Object reply, Object element) {
    if (!(element instanceof Long value)) {
      throw wrong(where, reply, "expected an integer where it sent " + show(element));
    }
    return value;
  }

  static String text(String where, Object reply, Object element) {
    if (!(element instanceof String value)) {
      throw wrong(where, reply, "expected a string where it sent " + show(element));
    }
    return value;
  }

  /** A string that is empty or a whole number of milliseconds. */
  static String millis(String where, Object reply, Object element) {
    String value = text(where, reply, element);
    if (!value.isEmpty() && !isWholeNumber(value)) {
      throw wrong(where, reply, "expected epoch milliseconds where it sent " + show(element));
    }
    return value;
  }

  /**
   * The 0/1 answer of renew, release and raise-fence. (Lettuce's object output hands a top-level
   * integer over as a list of that one integer.)
   */
  public static boolean flag(String where, Object reply) {
    if (reply instanceof List<?> list
        && list.size() == 1
        && list.get(0) instanceof Long value
        && (value == 0L || value == 1L)) {
      return value == 1L;
    }
    throw wrong(where, reply, "expected the integer 0 or 1");
  }

  private static boolean isWholeNumber(String s) {
    int start = s.charAt(0) == '-' ? 1 : 0;
    if (s.length() == start || s.length() - start > 18) {
      return false;
    }
    for (int i = start; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /** The reply as a short string for messages (scripts return no secrets). */
  static String show(Object reply) {
    String s =
        reply == null
            ? "nil"
            : reply instanceof String text ? "\"" + text + "\"" : String.valueOf(reply);
    return s.length() <= SHOWN ? s : s.substring(0, SHOWN) + "...";
  }
}
