package dev.leasehold.bench;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The Leasehold operations measured on every store, against one shared {@link LeaseStore} client
 * (as a daemon has one), each thread on its own lease name. Subclasses open the store, the raw
 * client that gives the floor (one bare round trip) and ShedLock's provider on the same server.
 *
 * <p>Every operation must succeed: a refused claim or renewal throws, so a benchmark can never
 * report the speed of the "lost the race" path by mistake. Names carry a random run prefix, so runs
 * by several people on the same servers never meet; subclasses delete what the run left behind.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public abstract class LeaseBench {
  /** Long enough that nothing expires during an iteration; renewals ask for the same. */
  static final Duration TTL = Duration.ofMinutes(10);

  /** Prefix of every name, key and row this JVM creates. */
  static final String RUN = "lh-bench-" + UUID.randomUUID().toString().substring(0, 8);

  private StoreBackend backend;
  private LeaseStore store;

  @Setup(Level.Trial)
  public void openStores() throws Exception {
    backend = open();
    // connect before measuring, as the daemon does at start-up
    backend.ping();
    store = backend.leaseStore();
  }

  @TearDown(Level.Trial)
  public void closeStores() throws Exception {
    try {
      close();
    } finally {
      backend.close();
    }
  }

  /**
   * Opens the Leasehold store under test (through its {@code StoreFactory}, as the daemon does) and
   * whatever else the subclass measures.
   */
  protected abstract StoreBackend open() throws Exception;

  /** Deletes the run's keys or rows and closes the subclass's own clients. */
  protected abstract void close() throws Exception;

  /** ShedLock's provider on the same server; none for Redlock (ShedLock has no Redlock). */
  protected Optional<LockProvider> shedlock() {
    return Optional.empty();
  }

  /** Fails the trial with a readable message when a server is not up. */
  static void requireServer(String what, int port) {
    if (!listening("127.0.0.1", port)) {
      throw new IllegalStateException(
          what
              + " on 127.0.0.1:"
              + port
              + " is not reachable; start it with: bash .ci/services.sh");
    }
  }

  /** Whether something accepts TCP connections on {@code host:port} (within one second). */
  static boolean listening(String host, int port) {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress(host, port), 1000);
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /** The per-thread lease name, firing counter and held leases. */
  @State(Scope.Thread)
  public static class Slot {
    String name;
    String holder;
    long firing;
    Lease renewed;

    @Setup(Level.Trial)
    public void name(ThreadParams thread) {
      name = RUN + "-t" + thread.getThreadIndex();
      holder = "bench-" + thread.getThreadIndex();
      // firings only need to rise; 2001-09-09 leaves room below for nothing else to collide with
      firing = 1_000_000_000_000L;
    }

    Instant nextFiring() {
      return Instant.ofEpochMilli(firing++);
    }
  }

  /** The lease {@link #lh_claim} took, released after each invocation, outside the timed part. */
  @State(Scope.Thread)
  public static class Claimed {
    Lease lease;
    LeaseStore store;

    @TearDown(Level.Invocation)
    public void release() {
      if (lease != null) {
        expect(store.release(lease), "release after claim");
        lease = null;
      }
    }
  }

  /** One scheduled firing: claim a fresh firing, then release it. */
  @Benchmark
  public boolean lh_claimRelease(Slot slot) {
    Lease lease = expect(store.claim(slot.name + "-c", slot.nextFiring(), slot.holder, TTL));
    return expect(store.release(lease), "release");
  }

  /** The claim alone (the release of each claim runs between invocations, untimed). */
  @Benchmark
  public Lease lh_claim(Slot slot, Claimed claimed) {
    claimed.store = store;
    claimed.lease = expect(store.claim(slot.name + "-k", slot.nextFiring(), slot.holder, TTL));
    return claimed.lease;
  }

  /** Plain mutual exclusion, the same semantic as a ShedLock lock. */
  @Benchmark
  public boolean lh_acquireRelease(Slot slot) {
    Lease lease = expect(store.acquire(slot.name + "-a", slot.holder, TTL));
    return expect(store.release(lease), "release");
  }

  /** A watchdog's renewal of a lease held for the whole trial. */
  @Benchmark
  public boolean lh_renew(Slot slot) {
    if (slot.renewed == null) {
      slot.renewed = expect(store.acquire(slot.name + "-r", slot.holder, TTL));
    }
    return expect(store.renew(slot.renewed, TTL), "renew");
  }

  /** Names due at the same instant in a burst. */
  static final int BURST = 1000;

  /** Threads of the pool that takes a burst one name per task (a scheduler's worker pool). */
  static final int BURST_THREADS = 16;

  /**
   * The names of a burst and what an invocation took; released after each invocation, untimed, so
   * every invocation starts from {@link #BURST} free names.
   */
  @State(Scope.Thread)
  public static class Burst {
    final List<String> names = new ArrayList<>();
    final List<Lease> leases = Collections.synchronizedList(new ArrayList<>());
    final List<SimpleLock> locks = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool;
    LeaseStore store;
    long firing = 2_000_000_000_000L;

    @Setup(Level.Trial)
    public void start() {
      for (int i = 0; i < BURST; i++) {
        names.add(RUN + "-burst-" + i);
      }
      pool = Executors.newFixedThreadPool(BURST_THREADS);
    }

    @TearDown(Level.Invocation)
    public void releaseAll() {
      for (Lease lease : leases) {
        expect(store.release(lease), "release after burst");
      }
      leases.clear();
      locks.forEach(SimpleLock::unlock);
      locks.clear();
    }

    @TearDown(Level.Trial)
    public void stop() {
      pool.shutdownNow();
    }

    Instant nextFiring() {
      return Instant.ofEpochMilli(firing++);
    }

    void runAll(List<Callable<Object>> tasks) throws InterruptedException, ExecutionException {
      for (Future<Object> done : pool.invokeAll(tasks)) {
        done.get();
      }
    }
  }

  /**
   * {@link #BURST} names due at one instant, taken in one call: the store's batch claim ({@code
   * claimAll}; a store without one claims them one after another).
   */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public int burst_lh_claimAll(Burst burst) {
    burst.store = store;
    Instant firing = burst.nextFiring();
    List<ClaimRequest> requests = new ArrayList<>(BURST);
    for (String name : burst.names) {
      requests.add(new ClaimRequest(name, firing, "bench-burst", TTL));
    }
    for (ClaimResult result : store.claimAll(requests)) {
      burst.leases.add(
          result.leaseIfWon().orElseThrow(() -> new IllegalStateException("burst: " + result)));
    }
    return burst.leases.size();
  }

  /** The same burst taken one name per task on a pool of {@link #BURST_THREADS} threads. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public int burst_lh_pool(Burst burst) throws InterruptedException, ExecutionException {
    burst.store = store;
    Instant firing = burst.nextFiring();
    List<Callable<Object>> tasks = new ArrayList<>(BURST);
    for (String name : burst.names) {
      tasks.add(() -> burst.leases.add(expect(store.claim(name, firing, "bench-burst", TTL))));
    }
    burst.runAll(tasks);
    return burst.leases.size();
  }

  /** The same burst through ShedLock, one {@code lock()} per task on the same pool. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public int burst_shedlock_pool(Burst burst) throws InterruptedException, ExecutionException {
    burst.store = store;
    LockProvider provider =
        shedlock().orElseThrow(() -> new IllegalStateException("no ShedLock provider here"));
    List<Callable<Object>> tasks = new ArrayList<>(BURST);
    for (String name : burst.names) {
      tasks.add(
          () -> {
            LockConfiguration config =
                new LockConfiguration(ClockProvider.now(), name + "-s", TTL, Duration.ZERO);
            Optional<SimpleLock> lock = provider.lock(config);
            expect(lock.isPresent(), "ShedLock lock in burst");
            return burst.locks.add(lock.get());
          });
    }
    burst.runAll(tasks);
    return burst.locks.size();
  }

  /**
   * ShedLock's {@code lock()} then {@code unlock()} on the thread's own lock name, with the lock
   * configuration built as ShedLock's own executor builds it (its clock counts whole milliseconds).
   */
  static boolean shedlockLockUnlock(LockProvider provider, Slot slot) {
    LockConfiguration config =
        new LockConfiguration(ClockProvider.now(), slot.name + "-s", TTL, Duration.ZERO);
    Optional<SimpleLock> lock = provider.lock(config);
    expect(lock.isPresent(), "ShedLock lock");
    lock.get().unlock();
    return true;
  }

  static Lease expect(Optional<Lease> lease) {
    return lease.orElseThrow(() -> new IllegalStateException("lease refused: bench names clash?"));
  }

  static boolean expect(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what + " refused: the measurement would be meaningless");
    }
    return true;
  }
}
