package dev.leasehold.app.admin;

import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Limits guessing of the admin token: a client address that sent {@link #PER_CLIENT} wrong tokens
 * within {@link #WINDOW} is refused (429) until that window ends, whatever token it sends, and
 * after {@link #IN_ALL} wrong tokens from all clients in a window, every client that itself sent a
 * wrong token in its window is refused until that window ends. A client that sent no wrong token is
 * never refused: other clients' failures cannot lock the operator out. Counted in fixed windows per
 * client; at most {@link #CLIENTS} addresses are remembered (the oldest are forgotten first).
 */
final class AuthFailures {
  static final Duration WINDOW = Duration.ofMinutes(1);
  static final int PER_CLIENT = 10;
  static final int IN_ALL = 100;
  static final int CLIENTS = 4096;

  private final LongSupplier nanoTime;
  private final Map<InetAddress, long[]> clients =
      new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, long[]> eldest) {
          return size() > CLIENTS;
        }
      };
  private long[] all;

  AuthFailures(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** Seconds until {@code client} may try again, or 0 when it may try now. */
  synchronized long blockedSeconds(InetAddress client) {
    long now = nanoTime.getAsLong();
    long[] own = clients.get(client);
    boolean failedLately = own != null && now - own[0] < WINDOW.toNanos();
    long wait = Math.max(wait(own, PER_CLIENT, now), failedLately ? wait(all, IN_ALL, now) : 0);
    return wait == 0 ? 0 : Math.max(1, Duration.ofNanos(wait).toSeconds());
  }

  synchronized void failed(InetAddress client) {
    long now = nanoTime.getAsLong();
    clients.put(client, count(clients.get(client), now));
    all = count(all, now);
  }

  synchronized void succeeded(InetAddress client) {
    clients.remove(client);
  }

  /** {window start, failures} */
  private static long[] count(long[] window, long now) {
    if (window == null || now - window[0] >= WINDOW.toNanos()) {
      return new long[] {now, 1};
    }
    window[1]++;
    return window;
  }

  private static long wait(long[] window, int limit, long now) {
    if (window == null || window[1] < limit) {
      return 0;
    }
    long left = window[0] + WINDOW.toNanos() - now;
    return Math.max(0, left);
  }
}
