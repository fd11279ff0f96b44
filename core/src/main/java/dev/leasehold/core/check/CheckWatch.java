package dev.leasehold.core.check;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.hold.LeaseHold;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.time.Cancellable;
import dev.leasehold.core.time.TaskTimer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the heartbeat checks on this replica and sends each of their events ({@link CheckRules})
 * exactly once cluster-wide.
 *
 * <p>When to look: each replica reads a check's pings when its own computed deadline comes ({@link
 * CheckRules#nextLook}: the newest ping's deadline plus {@link CheckRules#SETTLE}) and re-arms when
 * a newer ping moved it; at once after a ping recorded here; every {@link #DOWN} while the check is
 * down (a recovery may be written by any node or by the CLI straight to the store); and at least
 * every {@link #IDLE} (a fail ping from the CLI, a sender that died). An idle check costs one read
 * per replica per {@link #IDLE}, not one per second.
 *
 * <p>Who sends, as the scheduler's notice desk does for jobs: the events are derived from the pings
 * alone, so every replica derives the same ones; what was sent is the watermark of the check's
 * <em>mark</em> record ({@link CheckNames#mark}), the time of the latest event sent. A replica that
 * finds an event past the mark takes the check's <em>desk</em> lease ({@link CheckNames#desk},
 * {@code acquire}, held by a {@link LeaseHold}), reads pings and mark again, and for each event
 * past the mark, oldest first, delivers it and then claims the mark at the event's time (released
 * at once): the store moves the watermark, so no later pass sends it again. An event is sent twice
 * only when its sender lost the desk after delivering and before marking; a sender that died before
 * delivering is replaced by the next replica that looks. Events older than {@link #WINDOW} are not
 * sent (a cluster that starts does not replay old pings).
 *
 * <p>It has no thread of its own: looks are tasks on the scheduler's {@link TaskTimer} that hand
 * the store calls and deliveries to the scheduler's workers; two looks of one check never overlap.
 */
public final class CheckWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CheckWatch.class);

  /** Longest time between two looks at a check that is up. */
  public static final Duration IDLE = Duration.ofSeconds(60);

  /** Time between two looks at a check that is down, for its recovery. */
  public static final Duration DOWN = Duration.ofSeconds(5);

  /** Events older than this are not sent. */
  public static final Duration WINDOW = Duration.ofHours(1);

  /** The desk lease's time to live: a dead sender is replaced after it. */
  static final Duration DESK_TTL = LeaseDefaults.TTL;

  /** The mark's claim is released at once; this bounds it when its claimant dies first. */
  static final Duration MARK_TTL = Duration.ofMillis(100);

  /** How often a replica prunes a check's old pings. */
  static final Duration PRUNE_EVERY = Duration.ofHours(1);

  private final LeaseStore store;
  private final CheckJournal pings;
  private final LeaseHolds holds;
  private final CheckNotices notices;
  private final String node;
  private final Clock clock;

  // guarded by this
  private final Map<String, Watched> watched = new HashMap<>();
  private TaskTimer timer;
  private Executor workers;
  private boolean closed;

  /** One check on this replica; guarded by the watch. */
  private static final class Watched {
    CheckDefinition check;
    Cancellable pending;
    boolean busy;
    boolean again;
    Instant pruned = Instant.MIN;

    Watched(CheckDefinition check) {
      this.check = check;
    }
  }

  /**
   * @param holds takes and holds the desk leases (on the scheduler's timer and workers)
   * @param node this replica: the desk's holder and the mark's claimant
   */
  public CheckWatch(
      LeaseStore store,
      CheckJournal pings,
      LeaseHolds holds,
      CheckNotices notices,
      String node,
      Clock clock) {
    this.store = store;
    this.pings = pings;
    this.holds = holds;
    this.notices = notices;
    this.node = node;
    this.clock = clock;
  }

  /** Starts watching {@code checks}: each is looked at once now. Called once. */
  public synchronized void start(List<CheckDefinition> checks, TaskTimer timer, Executor workers) {
    if (this.timer != null) {
      throw new IllegalStateException("the check watch is started already");
    }
    this.timer = timer;
    this.workers = workers;
    checks(checks);
  }

  /** A reload's checks: new ones are looked at now, removed ones are no longer watched. */
  public synchronized void checks(List<CheckDefinition> checks) {
    Map<String, CheckDefinition> given = new HashMap<>();
    checks.forEach(c -> given.put(c.name(), c));
    watched
        .entrySet()
        .removeIf(
            e -> {
              if (given.containsKey(e.getKey())) {
                return false;
              }
              cancel(e.getValue());
              return true;
            });
    for (CheckDefinition check : checks) {
      Watched w = watched.get(check.name());
      if (w == null) {
        watched.put(check.name(), new Watched(check));
        schedule(check.name(), Duration.ZERO);
      } else if (!w.check.equals(check)) {
        w.check = check;
        schedule(check.name(), Duration.ZERO);
      }
    }
  }

  /** A ping of {@code check} was recorded on this replica: it is looked at now. Any thread. */
  public synchronized void pinged(String check) {
    if (watched.containsKey(check)) {
      schedule(check, Duration.ZERO);
    }
  }

  /** Stops looking; a look under way ends on its own. */
  @Override
  public synchronized void close() {
    closed = true;
    watched.values().forEach(CheckWatch::cancel);
  }

  private static void cancel(Watched w) {
    if (w.pending != null) {
      w.pending.cancel();
      w.pending = null;
    }
  }

  /** Arms the check's next look {@code delay} from now, replacing the one armed. */
  private synchronized void schedule(String name, Duration delay) {
    Watched w = watched.get(name);
    if (closed || w == null || timer == null) {
      return;
    }
    cancel(w);
    try {
      w.pending = timer.schedule(() -> due(name), delay.isNegative() ? Duration.ZERO : delay);
    } catch (RejectedExecutionException e) {
      // the timer is closed: the daemon is stopping
    }
  }

  /** On the timer: hands the look to a worker, or asks the one under way for another. */
  private synchronized void due(String name) {
    Watched w = watched.get(name);
    if (closed || w == null) {
      return;
    }
    w.pending = null;
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    CheckDefinition check = w.check;
    boolean prune = !w.pruned.isAfter(clock.instant().minus(PRUNE_EVERY));
    if (prune) {
      w.pruned = clock.instant();
    }
    try {
      workers.execute(() -> look(check, prune));
    } catch (RejectedExecutionException e) {
      w.busy = false;
    }
  }

  /** On a worker: one look, then the next one armed. */
  private void look(CheckDefinition check, boolean prune) {
    Instant next = clock.instant().plus(DOWN);
    try {
      next = lookOnce(check, prune);
    } catch (RuntimeException e) {
      log.warn("check={}: cannot read its pings: {}; looking again", check.name(), e.getMessage());
    } finally {
      looked(check.name(), next);
    }
  }

  private synchronized void looked(String name, Instant next) {
    Watched w = watched.get(name);
    if (w == null) {
      return;
    }
    w.busy = false;
    if (w.again) {
      w.again = false;
      schedule(name, Duration.ZERO);
    } else {
      schedule(name, Duration.between(clock.instant(), next));
    }
  }

  /**
   * Reads the check's pings, sends the events past the mark when there are any, and returns when to
   * look again.
   */
  Instant lookOnce(CheckDefinition check, boolean prune) {
    List<Ping> read = pings.pings(check.name());
    Instant now = clock.instant();
    List<CheckEvent> events = due(check, read, now);
    Instant mark = mark(check.name());
    if (events.stream().anyMatch(e -> after(e, mark)) && !send(check)) {
      // another replica sends; look again soon in case it dies
      Instant soon = clock.instant().plus(DOWN);
      Instant next = CheckRules.nextLook(check, read, now, IDLE, DOWN);
      return soon.isBefore(next) ? soon : next;
    }
    if (prune) {
      try {
        pings.prune(check.name(), read, now);
      } catch (RuntimeException e) {
        log.debug("check={}: old pings not pruned: {}", check.name(), e.getMessage());
      }
    }
    return CheckRules.nextLook(check, read, now, IDLE, DOWN);
  }

  /** Takes the desk and sends what is past the mark; false when another replica holds the desk. */
  private boolean send(CheckDefinition check) {
    String name = check.name();
    Optional<LeaseHold> desk =
        holds
            .acquire(CheckNames.desk(name), node, DESK_TTL, null, LeaseHold.Listener.NONE)
            .holdIfHeld();
    if (desk.isEmpty()) {
      log.debug("check={}: another replica is sending its events", name);
      return false;
    }
    LeaseHold holding = desk.get();
    try {
      // read again under the desk: a pass that ended meanwhile moved the mark
      Instant mark = mark(name);
      for (CheckEvent event : due(check, pings.pings(name), clock.instant())) {
        if (!after(event, mark)) {
          continue;
        }
        if (holding.lost()) {
          log.warn("check={}: the desk lease was lost; another replica goes on", name);
          return true;
        }
        log.info("check={} event={} at={}", name, event.kind(), event.at());
        notices.deliver(event);
        markSent(name, event.at());
      }
      return true;
    } finally {
      holding.release();
    }
  }

  private List<CheckEvent> due(CheckDefinition check, List<Ping> read, Instant now) {
    Instant oldest = now.minus(WINDOW);
    return CheckRules.events(check, read, now).stream()
        .filter(e -> e.at().isAfter(oldest))
        .toList();
  }

  private static boolean after(CheckEvent event, Instant mark) {
    return mark == null || event.at().isAfter(mark);
  }

  private Instant mark(String check) {
    return store.inspect(CheckNames.mark(check)).map(LeaseState::lastFire).orElse(null);
  }

  /** Moves the mark to {@code at}: that event and every earlier one are done. */
  private void markSent(String check, Instant at) {
    ClaimResult answer = store.tryClaim(CheckNames.mark(check), at, node, MARK_TTL);
    if (answer.kind() == ClaimResult.Kind.WON) {
      try {
        store.release(answer.lease());
      } catch (RuntimeException e) {
        // ends within MARK_TTL on its own
      }
    } else if (answer.kind() == ClaimResult.Kind.HELD) {
      log.warn("check={} event at={} sent but not marked: the mark was held", check, at);
    }
  }
}
