package dev.leasehold.core.check;

import dev.leasehold.core.lease.LeaseNames;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The store names of a check: its journal stream of pings, the desk lease of its notifications (who
 * sends now) and their mark (the watermark is the time of the latest event sent). Each at most
 * {@value #MAX_LENGTH} characters, so they fit under any namespace; a longer check name is cut and
 * ends in a hash of the whole name. All start with {@code _leasehold.}, so the removed-job cleanup
 * leaves them alone.
 */
public final class CheckNames {
  /** Prefix of a check's ping stream. */
  public static final String STREAM_PREFIX = "_leasehold.ping.";

  /** Prefix of a check's desk lease. */
  public static final String DESK_PREFIX = "_leasehold.check-desk.";

  /** Prefix of a check's mark record. */
  public static final String MARK_PREFIX = "_leasehold.check-mark.";

  /** Longest name made here. */
  public static final int MAX_LENGTH = 45;

  private CheckNames() {}

  public static String stream(String check) {
    return name(STREAM_PREFIX, check);
  }

  public static String desk(String check) {
    return name(DESK_PREFIX, check);
  }

  public static String mark(String check) {
    return name(MARK_PREFIX, check);
  }

  private static String name(String prefix, String check) {
    LeaseNames.require(check);
    if (prefix.length() + check.length() <= MAX_LENGTH) {
      return prefix + check;
    }
    String hash = digest(check);
    return prefix
        + check.substring(0, MAX_LENGTH - prefix.length() - hash.length() - 1)
        + "-"
        + hash;
  }

  private static String digest(String check) {
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256").digest(check.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
