package dev.leasehold.core.lease;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The two records through which a job's notifications are handed between replicas: the desk lease
 * (who sends now) and the mark (up to which firing everything was sent). One of each per job, at
 * most {@value #MAX_LENGTH} characters, so they fit under any namespace as a job name of that
 * length does; a longer job name is cut and ends in a hash of the whole name.
 */
public final class NoticeNames {
  /** Prefix of a job's desk lease. */
  public static final String DESK_PREFIX = "_leasehold.notify.";

  /** Prefix of a job's mark record. */
  public static final String MARK_PREFIX = "_leasehold.notified.";

  /** Longest name made here. */
  public static final int MAX_LENGTH = 45;

  private NoticeNames() {}

  /** The desk lease of {@code job}. */
  public static String desk(String job) {
    return name(DESK_PREFIX, job);
  }

  /** The mark record of {@code job}. */
  public static String mark(String job) {
    return name(MARK_PREFIX, job);
  }

  /** Whether {@code name} is a desk or a mark (of some job). */
  public static boolean isNoticeName(String name) {
    return name.startsWith(DESK_PREFIX) || name.startsWith(MARK_PREFIX);
  }

  private static String name(String prefix, String job) {
    return fitted(prefix, job, MAX_LENGTH);
  }

  /** {@code prefix + job}, or when longer than {@code max} the job's start and a digest of it. */
  static String fitted(String prefix, String job, int max) {
    LeaseNames.require(job);
    if (prefix.length() + job.length() <= max) {
      return prefix + job;
    }
    String hash = digest(job);
    return prefix + job.substring(0, max - prefix.length() - hash.length() - 1) + "-" + hash;
  }

  private static String digest(String job) {
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256").digest(job.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
