package dev.leasehold.core.testing;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreBackend;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The reference {@link LeaseStore}: one monitor, its own clock (the "store clock"). It passes the
 * contract kit, and core's scheduler tests run on it in virtual time. Several instances share state
 * through one {@link Shared} object, like several clients of one server. It can be made unreachable
 * to test fail-closed behaviour. It keeps every part a store may have: pauses, node records and
 * forgetting, and a journal ({@link #backend}).
 */
public final class InMemoryLeaseStore implements LeaseStore, Pauses, NodeRecords, Forgetting {

  /** The "server": rows and the store clock, shared by every client created from it. */
  public static final class Shared {
    private final Clock clock;
    private final Map<String, Row> rows = new TreeMap<>();
    private final Map<String, Long> highWater = new TreeMap<>();
    private final Map<String, dev.leasehold.core.lease.NodeRecord> nodes = new TreeMap<>();
    private final AtomicBoolean reachable = new AtomicBoolean(true);
    private final InMemoryJournal journal = new InMemoryJournal();

    public Shared(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
    }

    private volatile boolean clockReadable = true;

    /**
     * A store whose clock no client can read, as etcd's and ZooKeeper's: {@link #storeTime} is
     * empty and leases carry no expiry, so schedulers fire on their own clocks.
     */
    public Shared withoutAReadableClock() {
      clockReadable = false;
      return this;
    }

    /** While false every call throws {@link LeaseStoreException}, like a store that is down. */
    public void setReachable(boolean up) {
      reachable.set(up);
    }

    /** Deletes a lease row behind everyone's back (the "stolen lease" fault). */
    public synchronized void delete(String name) {
      rows.remove(name);
    }

    public InMemoryLeaseStore client() {
      return new InMemoryLeaseStore(this);
    }
  }

  private static final class Row {
    String holder;
    String token;
    long fence;
    Instant lastFire;
    Instant leaseUntil;
    Pause pause;
    Instant pausedFire;
  }

  private final Shared shared;

  private InMemoryLeaseStore(Shared shared) {
    this.shared = shared;
  }

  /**
   * This client as a store that has every part, with a history of its own ({@code history}, or a
   * new {@link InMemoryExecutionLog} when null). Closing it closes nothing.
   */
  public StoreBackend backend(ExecutionLog history) {
    ExecutionLog log = history == null ? new InMemoryExecutionLog() : history;
    InMemoryLeaseStore client = this;
    return new StoreBackend() {
      @Override
      public LeaseStore leaseStore() {
        return client;
      }

      @Override
      public ExecutionLog executionLog() {
        return log;
      }

      @Override
      public Optional<Pauses> pauses() {
        return Optional.of(client);
      }

      @Override
      public Optional<NodeRecords> nodeRecords() {
        return Optional.of(client);
      }

      @Override
      public Optional<Forgetting> forgetting() {
        return Optional.of(client);
      }

      @Override
      public Optional<Journal> journal() {
        return Optional.of(client.shared.journal);
      }

      @Override
      public void ping() {
        client.now();
      }

      @Override
      public void close() {}
    };
  }

  /** {@link #backend(ExecutionLog)} with a history of its own. */
  public StoreBackend backend() {
    return backend(null);
  }

  public static InMemoryLeaseStore standalone(Clock clock) {
    return new Shared(clock).client();
  }

  private Instant now() {
    if (!shared.reachable.get()) {
      throw new LeaseStoreException("in-memory store is unreachable");
    }
    return shared.clock.instant();
  }

  /** The store clock, as a server that tells its time. */
  @Override
  public Optional<Instant> storeTime() {
    synchronized (shared) {
      Instant now = now();
      return shared.clockReadable ? Optional.of(now) : Optional.empty();
    }
  }

  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    Instant at = LeaseArguments.firing(firing);
    LeaseArguments.holder(holder);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    synchronized (shared) {
      Row row = shared.rows.get(name);
      if (row != null && row.pause != null) {
        now();
        if (row.lastFire != null && !row.lastFire.isBefore(at)) {
          return ClaimResult.alreadyRun(row.lastFire);
        }
        row.lastFire = at;
        row.pausedFire = at;
        return ClaimResult.paused(at);
      }
      Optional<Lease> won = take(name, at, holder, ttlMillis);
      return won.map(ClaimResult::won).orElseGet(() -> ClaimResult.refusal(inspect(name), at));
    }
  }

  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    synchronized (shared) {
      Instant now = now();
      Row row = shared.rows.computeIfAbsent(name, n -> newRow(n));
      if (row.leaseUntil == null) {
        row.leaseUntil = now;
      }
      row.pause = new Pause(row.pause == null ? now : row.pause.since(), by, reason, stopRunning);
      return row.pause;
    }
  }

  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    synchronized (shared) {
      now();
      Row row = shared.rows.get(name);
      if (row == null || row.pause == null) {
        return false;
      }
      row.pause = null;
      if (catchUp && row.lastFire != null && row.lastFire.equals(row.pausedFire)) {
        row.lastFire = row.lastFire.minusMillis(1);
      }
      return true;
    }
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    return take(
        LeaseArguments.name(name),
        null,
        LeaseArguments.holder(holder),
        LeaseArguments.ttlMillis(ttl));
  }

  private Optional<Lease> take(String name, Instant firing, String holder, long ttlMillis) {
    synchronized (shared) {
      Instant now = now();
      Row row = shared.rows.computeIfAbsent(name, n -> newRow(n));
      boolean live = row.token != null && row.leaseUntil.isAfter(now);
      if (live || (firing != null && row.lastFire != null && !row.lastFire.isBefore(firing))) {
        return Optional.empty();
      }
      row.holder = holder;
      row.token = LeaseArguments.newToken();
      row.fence++;
      row.leaseUntil = now.plusMillis(ttlMillis);
      if (firing != null) {
        row.lastFire = firing;
      }
      return Optional.of(
          new Lease(
              name,
              holder,
              row.token,
              row.fence,
              Duration.ofMillis(ttlMillis),
              shared.clockReadable ? row.leaseUntil : null));
    }
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    synchronized (shared) {
      Instant now = now();
      Row row = shared.rows.get(lease.name());
      if (row == null
          || !lease.token().equals(row.token)
          || !row.leaseUntil.isAfter(now)
          || (row.pause != null && row.pause.stopRunning())) {
        return false;
      }
      row.leaseUntil = now.plusMillis(ttlMillis);
      return true;
    }
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    synchronized (shared) {
      Instant now = now();
      Row row = shared.rows.get(lease.name());
      if (row == null || !lease.token().equals(row.token)) {
        return false;
      }
      row.token = null;
      row.leaseUntil = now;
      return true;
    }
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    synchronized (shared) {
      Instant now = now();
      return Optional.ofNullable(shared.rows.get(name))
          .filter(r -> r.leaseUntil != null || r.lastFire != null)
          .map(r -> state(name, r, now));
    }
  }

  private Row newRow(String name) {
    Row row = new Row();
    row.fence = shared.highWater.getOrDefault(name, 0L);
    return row;
  }

  /** Removes a free, unpaused row; its fence stays as the name's high-water mark. */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    synchronized (shared) {
      Instant now = now();
      Row row = shared.rows.get(name);
      if (row == null || row.pause != null || (row.token != null && row.leaseUntil.isAfter(now))) {
        return false;
      }
      shared.rows.remove(name);
      if (name.startsWith("_leasehold.self-check.")) {
        shared.highWater.remove(name);
      } else {
        shared.highWater.merge(name, row.fence, Math::max);
      }
      return true;
    }
  }

  /** Kept in the shared "server" until {@link dev.leasehold.core.lease.NodeRecord#keptUntil}. */
  @Override
  public void publishNode(dev.leasehold.core.lease.NodeRecord node, java.time.Duration ttl) {
    dev.leasehold.core.lease.NodeRecord published = node.publishedFor(ttl);
    synchronized (shared) {
      now();
      shared.nodes.put(node.nodeId(), published);
    }
  }

  @Override
  public List<dev.leasehold.core.lease.NodeRecord> nodes() {
    synchronized (shared) {
      Instant now = now();
      shared.nodes.values().removeIf(n -> !now.isBefore(n.keptUntil()));
      return List.copyOf(shared.nodes.values());
    }
  }

  @Override
  public List<LeaseState> list() {
    synchronized (shared) {
      Instant now = now();
      return shared.rows.entrySet().stream()
          .filter(e -> e.getValue().leaseUntil != null)
          .map(e -> state(e.getKey(), e.getValue(), now))
          .toList();
    }
  }

  private static LeaseState state(String name, Row row, Instant now) {
    boolean held = row.token != null && row.leaseUntil.isAfter(now);
    return new LeaseState(
        name,
        row.token == null ? null : row.holder,
        row.leaseUntil,
        row.lastFire,
        row.fence,
        held,
        row.pause);
  }
}
