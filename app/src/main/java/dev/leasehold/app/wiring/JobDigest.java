package dev.leasehold.app.wiring;

import dev.leasehold.app.config.JobConfig;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A stable digest of a node's job set, published in its node record so that replicas running
 * different job definitions show up as drift. The jobs are normalized first: sorted by name, each
 * as its fields in declaration order, maps sorted by key, collections in their order, schedules by
 * their description. Two configuration files that define the same jobs (in any order, with any
 * formatting, comments or key order) have the same digest; a changed schedule, command, URL,
 * header, TTL or timeout changes it. Only the digest leaves the process, never the definitions.
 */
public final class JobDigest {
  private JobDigest() {}

  /** {@code sha256:} and the first 16 hex digits of the normalized jobs' SHA-256. */
  public static String of(List<JobConfig> jobs) {
    StringBuilder text = new StringBuilder();
    jobs.stream()
        .sorted(Comparator.comparing(JobConfig::name))
        .forEach(job -> normalize(job, text.append('\n')));
    return sha256(text.toString());
  }

  /**
   * The digest of the jobs {@code current} supplies, computed again only when it supplies another
   * list than the last time: a node record is published every few seconds, and a reload replaces
   * the list.
   */
  public static Supplier<String> following(Supplier<List<JobConfig>> current) {
    return new Supplier<>() {
      private List<JobConfig> digested;
      private String digest;

      @Override
      public synchronized String get() {
        List<JobConfig> jobs = current.get();
        if (jobs != digested) {
          digest = of(jobs);
          digested = jobs;
        }
        return digest;
      }
    };
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

  private static void normalize(Object value, StringBuilder out) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Record record) {
      out.append(record.getClass().getSimpleName()).append('(');
      for (RecordComponent c : record.getClass().getRecordComponents()) {
        out.append(c.getName()).append('=');
        try {
          c.getAccessor().setAccessible(true);
          normalize(c.getAccessor().invoke(record), out);
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
            normalize(v, out);
            out.append(';');
          });
      out.append('}');
    } else if (value instanceof java.util.Set<?> set) {
      out.append(new java.util.TreeSet<>(set.stream().map(String::valueOf).toList()));
    } else if (value instanceof Collection<?> list) {
      out.append('[');
      list.forEach(
          v -> {
            normalize(v, out);
            out.append(';');
          });
      out.append(']');
    } else if (value instanceof dev.leasehold.core.schedule.WindowedSchedule windowed) {
      // its short form counts the windows; the digest must see each one
      out.append(windowed.describe());
      windowed.exclusions().forEach(e -> out.append(';').append(e.describe()));
    } else if (value instanceof dev.leasehold.core.schedule.Schedule schedule) {
      out.append(schedule.describe());
    } else {
      out.append(value);
    }
  }
}
