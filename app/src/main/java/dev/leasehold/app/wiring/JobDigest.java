package dev.leasehold.app.wiring;

import dev.leasehold.app.config.JobConfig;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A stable digest of a node's job set, published in its node record so that replicas running
 * different job definitions show up as drift. The jobs are normalized first: sorted by name, each
 * as its fields in declaration order, maps sorted by key, collections in their order, schedules by
 * their description. Two configuration files that define the same jobs (in any order, with any
 * formatting, comments or key order) have the same digest; a changed schedule, command, URL,
 * header, TTL or timeout changes it. Only the digest leaves the process, never the definitions.
 *
 * <p>The digest is keyed: an HMAC-SHA256 under the namespace's digest key ({@link DigestKey}, a
 * random 256-bit key kept in the store's journal), so the replicas of one namespace agree and
 * nobody without the key can test guesses of a header or an environment value against a digest they
 * saw. It is shown as {@value #LABEL} and 16 hex digits.
 */
public final class JobDigest {
  /** What every keyed digest starts with. */
  public static final String LABEL = "hmac:";

  /**
   * The digest of a store that keeps no journal, so no key: equal everywhere, it shows no drift.
   */
  public static final String UNKEYED = "none";

  private JobDigest() {}

  /** {@value #LABEL} and the first 16 hex digits of the normalized jobs' HMAC-SHA256 under key. */
  public static String of(List<JobConfig> jobs, byte[] key) {
    return hmac(key, normalized(jobs, false));
  }

  /** The jobs normalized (sorted by name), the text a digest is computed over. */
  public static String text(List<JobConfig> jobs) {
    return normalized(jobs, false);
  }

  private static String normalized(List<JobConfig> jobs, boolean withoutValues) {
    StringBuilder text = new StringBuilder();
    jobs.stream()
        .sorted(Comparator.comparing(JobConfig::name))
        .forEach(job -> normalize(job, withoutValues, text.append('\n')));
    return text.toString();
  }

  /**
   * The jobs normalized with the values of every header and environment variable left out (their
   * names kept) and every secret the configuration declared scrubbed: text that holds nothing a
   * reader of the admin endpoint could not see anyway.
   */
  public static String withoutSecrets(List<JobConfig> jobs) {
    return dev.leasehold.core.store.Redaction.scrub(normalized(jobs, true));
  }

  /**
   * The digest of the jobs {@code current} supplies under the key {@code key} supplies (asked once,
   * at the first digest: {@link DigestKey#of} remembers it), computed again only when {@code
   * current} supplies another list than the last time: a node record is published every few
   * seconds, and a reload replaces the list. A key that cannot be had yet (the store does not
   * answer) fails this call; the next one asks again.
   */
  public static Supplier<String> following(
      Supplier<List<JobConfig>> current, Supplier<Optional<byte[]>> key) {
    return new Supplier<>() {
      private List<JobConfig> digested;
      private String digest;

      @Override
      public synchronized String get() {
        List<JobConfig> jobs = current.get();
        if (jobs != digested) {
          digest = key.get().map(k -> of(jobs, k)).orElse(UNKEYED);
          digested = jobs;
        }
        return digest;
      }
    };
  }

  /**
   * {@value #LABEL} and the first 16 hex digits of {@code text}'s HMAC-SHA256 (UTF-8) under key.
   */
  public static String hmac(byte[] key, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] sum = mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
      return LABEL + HexFormat.of().formatHex(sum).substring(0, 16);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }

  /** {@code sha256:} and the first 16 hex digits of {@code text}'s SHA-256 (UTF-8). */
  public static String sha256(String text) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(hash).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256", e);
    }
  }

  private static final java.util.Set<String> VALUES_LEFT_OUT = java.util.Set.of("headers", "env");

  private static void normalize(Object value, boolean withoutValues, StringBuilder out) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Record record) {
      out.append(record.getClass().getSimpleName()).append('(');
      for (RecordComponent c : record.getClass().getRecordComponents()) {
        out.append(c.getName()).append('=');
        try {
          c.getAccessor().setAccessible(true);
          Object field = c.getAccessor().invoke(record);
          if (withoutValues
              && VALUES_LEFT_OUT.contains(c.getName())
              && field instanceof Map<?, ?> m) {
            field = new java.util.TreeSet<>(m.keySet().stream().map(String::valueOf).toList());
          }
          normalize(field, withoutValues, out);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read " + c.getName(), e);
        }
        out.append(';');
      }
      out.append(')');
    } else if (value instanceof Map<?, ?> map) {
      Map<String, Object> sorted = new TreeMap<>();
      map.forEach((k, v) -> sorted.put(String.valueOf(k), v));
      out.append('{');
      sorted.forEach(
          (k, v) -> {
            out.append(k).append('=');
            normalize(v, withoutValues, out);
            out.append(';');
          });
      out.append('}');
    } else if (value instanceof java.util.Set<?> set) {
      out.append(new java.util.TreeSet<>(set.stream().map(String::valueOf).toList()));
    } else if (value instanceof Collection<?> list) {
      out.append('[');
      list.forEach(
          v -> {
            normalize(v, withoutValues, out);
            out.append(';');
          });
      out.append(']');
    } else if (value instanceof dev.leasehold.core.schedule.Schedule schedule) {
      out.append(schedule.describe());
    } else {
      out.append(value);
    }
  }
}
