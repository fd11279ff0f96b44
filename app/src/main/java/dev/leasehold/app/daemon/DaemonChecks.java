package dev.leasehold.app.daemon;

import dev.leasehold.app.config.CheckConfig;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.notify.CheckNotifier;
import dev.leasehold.core.check.CheckDefinition;
import dev.leasehold.core.check.CheckJournal;
import dev.leasehold.core.check.CheckWatch;
import dev.leasehold.core.lease.hold.LeaseHolds;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.time.Ticker;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon's heartbeat checks: the {@link CheckWatch} on the scheduler's timer and workers, its
 * notifier, and what a reload or a ping recorded here tells them. A store without a journal watches
 * nothing (a warning says so when checks are configured).
 */
public final class DaemonChecks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DaemonChecks.class);

  private final CheckNotifier notifier;
  private final String node;
  private final Clock clock;
  private volatile CheckWatch watch;

  DaemonChecks(DaemonConfig config, Clock clock) {
    this.notifier = new CheckNotifier(config.checks(), config.node(), clock);
    this.node = config.node();
    this.clock = clock;
  }

  /** Starts watching {@code checks} on the daemon's threads. */
  void start(List<CheckConfig> checks, StoreBackend backend, SchedulerThreads threads) {
    Optional<CheckJournal> journal = backend.journal().map(CheckJournal::new);
    if (journal.isEmpty()) {
      if (!checks.isEmpty()) {
        log.warn("this store keeps no journal: the {} checks are not watched", checks.size());
      }
      return;
    }
    CheckWatch started =
        new CheckWatch(
            backend.leaseStore(),
            journal.get(),
            new LeaseHolds(
                backend.leaseStore(), threads.timer(), Ticker.system(), threads.workers()),
            notifier,
            node,
            clock);
    started.start(definitions(checks), threads.timer(), threads.workers());
    watch = started;
  }

  /** A reload applied {@code next}: its checks are watched, with its notifiers. */
  void reloaded(DaemonConfig next) {
    notifier.checks(next.checks());
    CheckWatch w = watch;
    if (w != null) {
      w.checks(definitions(next.checks()));
    }
  }

  /** A ping of {@code check} was recorded here (by the admin endpoint): it is looked at now. */
  public void pinged(String check) {
    CheckWatch w = watch;
    if (w != null) {
      w.pinged(check);
    }
  }

  @Override
  public void close() {
    CheckWatch w = watch;
    if (w != null) {
      w.close();
    }
  }

  private static List<CheckDefinition> definitions(List<CheckConfig> checks) {
    return checks.stream().map(CheckConfig::definition).toList();
  }
}
