package dev.leasehold.core.schedule;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Another schedule's firings, each moved later by a deterministic offset in {@code [0, bound)}: the
 * offset of the nominal firing {@code n} is a hash of {@code key} (the job's name) and {@code n},
 * so every replica computes the same jittered instants, and those instants are the firings the
 * scheduler claims, records and shows as the next run (the watermark, coalescing and the misfire
 * grace all work on them unchanged).
 *
 * <p>The offset is also kept below the gap to the next nominal firing, so jittered firings keep the
 * nominal order (strictly increasing) even when the bound is longer than the gap.
 */
public record JitteredSchedule(Schedule base, String key, Duration bound) implements Schedule {

  public JitteredSchedule {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(key, "key");
    if (bound == null || bound.toMillis() < 1) {
      throw new IllegalArgumentException("jitter must be at least 1ms, got " + bound);
    }
    if (base instanceof JitteredSchedule) {
      throw new IllegalArgumentException("a schedule is jittered once");
    }
  }

  /**
   * The offset of nominal firing {@code nominal}: in {@code [0, bound)} and before the next one.
   */
  public Duration offset(Instant nominal) {
    long limit = bound.toMillis();
    Optional<Instant> next = base.nextAfter(nominal);
    if (next.isPresent()) {
      limit = Math.min(limit, Duration.between(nominal, next.get()).toMillis());
    }
    if (limit <= 1) {
      return Duration.ZERO;
    }
    return Duration.ofMillis(Math.floorMod(hash(key, nominal), limit));
  }

  /** The jittered instant of nominal firing {@code nominal}. */
  public Instant jittered(Instant nominal) {
    return nominal.plus(offset(nominal));
  }

  @Override
  public Optional<Instant> nextAfter(Instant instant) {
    // only the latest nominal firing at or before instant can be jittered past it: an earlier one
    // is jittered to before the next nominal firing, which is at or before instant
    Optional<Instant> latest = base.latestIn(instant.minus(bound), instant);
    if (latest.isPresent() && jittered(latest.get()).isAfter(instant)) {
      return Optional.of(jittered(latest.get()));
    }
    return base.nextAfter(instant).map(this::jittered);
  }

  @Override
  public String describe() {
    return base.describe() + " jitter " + Durations.format(bound);
  }

  private static long hash(String key, Instant nominal) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] digest =
          sha.digest((key + "@" + nominal.toEpochMilli()).getBytes(StandardCharsets.UTF_8));
      long h = 0;
      for (int i = 0; i < 8; i++) {
        h = (h << 8) | (digest[i] & 0xff);
      }
      return h;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
