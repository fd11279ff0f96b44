package dev.leasehold.store.zookeeper;

import dev.leasehold.core.lease.Pause;
import java.time.Instant;
import org.apache.zookeeper.OpResult;

/**
 * The data of a {@code jobs/<name>} node, one field per line: the watermark (epoch milliseconds,
 * empty when none); then, once a firing was recorded as paused or the job was paused, the latest
 * firing recorded as paused; then, while paused, since (epoch ms), stop (1 or 0), by, and the
 * reason (the rest, which may hold line breaks; absent when none). A node written before pauses
 * existed holds the watermark alone and reads the same. Every claim rewrites this node with a
 * version check, so a pause written here is seen by the claim's own transaction.
 */
record JobNode(Instant watermark, Instant pausedFire, Pause pause) {

  static final JobNode EMPTY = new JobNode(null, null, null);

  /** The job node as read: {@link #EMPTY} when it does not exist. */
  static JobNode of(OpResult read) {
    return ZooKeeperSession.statOf(read) == null ? EMPTY : parse(ZooKeeperSession.dataOf(read));
  }

  static JobNode parse(String data) {
    if (data == null || data.isEmpty()) {
      return EMPTY;
    }
    String[] f = data.split("\n", 6);
    Instant watermark = millis(f[0]);
    Instant pausedFire = f.length > 1 ? millis(f[1]) : null;
    Pause pause =
        f.length >= 5
            ? new Pause(millis(f[2]), f[4], f.length > 5 ? f[5] : null, "1".equals(f[3]))
            : null;
    return new JobNode(watermark, pausedFire, pause);
  }

  JobNode withWatermark(Instant firing) {
    return new JobNode(firing, pausedFire, pause);
  }

  JobNode recordedPaused(Instant firing) {
    return new JobNode(firing, firing, pause);
  }

  JobNode paused(Pause p) {
    return new JobNode(watermark, pausedFire, p);
  }

  @Override
  public String toString() {
    String wm = watermark == null ? "" : Long.toString(watermark.toEpochMilli());
    if (pausedFire == null && pause == null) {
      return wm;
    }
    StringBuilder s = new StringBuilder(wm).append('\n');
    s.append(pausedFire == null ? "" : Long.toString(pausedFire.toEpochMilli()));
    if (pause != null) {
      s.append('\n').append(pause.since().toEpochMilli());
      s.append('\n').append(pause.stopRunning() ? "1" : "0");
      s.append('\n').append(pause.by());
      if (pause.reason() != null) {
        s.append('\n').append(pause.reason());
      }
    }
    return s.toString();
  }

  private static Instant millis(String s) {
    return s == null || s.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(s.strip()));
  }
}
