package dev.leasehold.core.store;

import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.time.Cancellable;
import dev.leasehold.core.time.TaskTimer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this daemon's {@link NodeRecord} in the store: published at start, then every {@link
 * #REFRESH} (half of {@link #TTL}: one publication may fail or come late without the record turning
 * stale), so a replica that stops refreshing is stale one TTL after its last record and gone {@link
 * NodeRecord#STALE_FACTOR} TTLs later. The leases it lists are the store's own answer (every live
 * lease this node holds), read just before each publication. The node list is read right after it
 * and kept ({@link #latest}) for the drift metric when there is one ({@link #onRead}); without one,
 * only every {@link #READ_EVERY}th publication reads it, so that a store without an expiry of its
 * own still drops the records past their keep time (a read does that) while nobody runs {@code
 * nodes}: two statements a refresh instead of four on SQL.
 *
 * <p>A failed publication logs a warning (once until one succeeds again) and is tried again at the
 * next refresh; it never touches the scheduler. A store without node records (no {@link
 * StoreBackend#nodeRecords}) is left alone.
 *
 * <p>It has no thread of its own: a publication is a task on the scheduler's {@link TaskTimer} that
 * hands the store calls to the scheduler's workers (the timer never blocks); the next one is
 * scheduled on the timer at the end of the previous one, {@link #REFRESH} later, so two never
 * overlap.
 */
public final class NodePublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodePublisher.class);

  /** How long a record is live after it was published. */
  public static final Duration TTL = Duration.ofSeconds(15);

  /** How often the record is published again. */
  public static final Duration REFRESH = TTL.dividedBy(2);

  /** Without a listener, the node list is read at every this many publications (once a minute). */
  static final int READ_EVERY = 8;

  private final LeaseStore store;
  private final NodeRecords records;
  private final String node;
  private final String version;
  private final java.util.function.Supplier<String> jobDigest;
  private final Instant startedAt;
  private final Clock clock;
  private boolean failing;
  private TaskTimer timer;
  private Executor workers;
  private volatile Cancellable pending;
  private volatile boolean closed;
  private volatile Replicas latest;
  private volatile java.util.function.Consumer<Replicas> onRead;
  private int publishedSinceRead = READ_EVERY; // the first publication reads

  public NodePublisher(
      StoreBackend store, String node, String version, String jobDigest, Clock clock) {
    this(store, node, version, () -> jobDigest, clock);
  }

  /**
   * @param jobDigest read at each publication, so that a reloaded job set shows at the next refresh
   */
  public NodePublisher(
      StoreBackend store,
      String node,
      String version,
      java.util.function.Supplier<String> jobDigest,
      Clock clock) {
    this.store = store.leaseStore();
    this.records = store.nodeRecords().orElse(null);
    this.node = node;
    this.version = version;
    this.jobDigest = jobDigest;
    this.clock = clock;
    this.startedAt = clock.instant();
  }

  /** Called with the replicas after every publication (the drift metric); set before start. */
  public NodePublisher onRead(java.util.function.Consumer<Replicas> listener) {
    this.onRead = listener;
    return this;
  }

  /**
   * Publishes now and then {@link #REFRESH} after each publication ended, each a task on {@code
   * timer} whose store calls run on {@code workers} (the scheduler's own two; neither is closed
   * here); does nothing on a store without records. Called once.
   */
  public void start(TaskTimer timer, Executor workers) {
    if (this.timer != null) {
      throw new IllegalStateException("the node publisher is started already");
    }
    this.timer = timer;
    this.workers = workers;
    if (records == null) {
      log.debug("store keeps no node records; this node is not published");
      return;
    }
    next(Duration.ZERO);
  }

  /** On the timer: hands the publication to a worker. */
  private void due() {
    if (closed) {
      return;
    }
    try {
      workers.execute(this::pass);
    } catch (RejectedExecutionException e) {
      // the workers are shut down: the daemon is stopping
    }
  }

  /** On a worker: one publication, then the next one scheduled (so they never overlap). */
  private void pass() {
    try {
      publishOnce();
    } finally {
      next(REFRESH);
    }
  }

  /**
   * Schedules the next publication unless closed. {@link #close} sets {@code closed} before it
   * reads {@code pending} and this writes {@code pending} before it reads {@code closed} again, so
   * a publication scheduled while closing is always called off by one of the two.
   */
  private void next(Duration delay) {
    if (closed) {
      return;
    }
    try {
      pending = timer.schedule(this::due, delay);
    } catch (RejectedExecutionException e) {
      return; // the timer is closed: the daemon is stopping
    }
    if (closed) {
      pending.cancel();
    }
  }

  /**
   * Publishes the record once; returns whether the store took it.
   *
   * <p>Needs no lock: once {@link #start started}, only the chain of publications calls it, one at
   * a time (each schedules the next when it ends, and the timer's and the workers' hand-overs order
   * one publication's writes before the next one's reads); a test calls it directly on a publisher
   * it never started.
   */
  public boolean publishOnce() {
    try {
      List<String> held =
          store.list().stream()
              .filter(s -> s.held() && node.equals(s.holder()))
              .map(LeaseState::name)
              .toList();
      records.publishNode(
          new NodeRecord(node, version, startedAt, clock.instant(), jobDigest.get(), held), TTL);
      java.util.function.Consumer<Replicas> listener = onRead;
      if (listener != null || ++publishedSinceRead >= READ_EVERY) {
        publishedSinceRead = 0;
        latest = Replicas.of(records.nodes(), clock.instant());
        if (listener != null) {
          listener.accept(latest);
        }
      }
      if (failing) {
        log.info("node record published again");
      }
      failing = false;
      return true;
    } catch (RuntimeException e) {
      if (closed) {
        // the daemon is stopping and its store may close under this call: nothing to report
        log.debug("node record not published while stopping: {}", e.getMessage());
        return false;
      }
      if (!failing) {
        log.warn("node record not published: {}; trying again", e.getMessage());
      } else {
        log.debug("node record not published again: {}", e.getMessage());
      }
      failing = true;
      return false;
    }
  }

  /**
   * The replicas as last read right after a publication (for the drift metric: after every one when
   * a listener is set), or empty before the first one and on a store without node records.
   */
  public Optional<Replicas> latest() {
    return Optional.ofNullable(latest);
  }

  /**
   * Stops publishing and waits for nothing: the pending publication is called off (one under way
   * ends on its own); the record expires on its own (a restart under the same id replaces it).
   */
  @Override
  public void close() {
    closed = true;
    Cancellable task = pending;
    if (task != null) {
      task.cancel();
    }
  }
}
