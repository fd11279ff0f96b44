package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.ClaimResult.Kind;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failover under Redis Sentinel, on a real set-up started by the test ({@link SentinelSetup}: a
 * master, a replica behind a relay that can stall its link, three sentinels). Redis replicates
 * asynchronously: a claim the master acknowledged can be missing on the replica it promotes. With
 * {@code wait-replicas: 1} a claim counts only once the replica has it, so no firing runs twice and
 * no fence is handed out twice; without it, the tests count what happens (the counts are printed
 * and documented in docs/stores/redis.md).
 */
// above the sum of the phases' own bounds, so that a slow phase fails with its own message
@Timeout(value = 480, unit = TimeUnit.SECONDS)
class RedisSentinelFailoverTest {
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");

  private SentinelSetup setup;
  private final java.util.concurrent.atomic.AtomicReference<String> lastError =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final List<LeaseStore> stores = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    stores.forEach(LeaseStore::close);
    if (setup != null) {
      setup.close();
    }
  }

  private LeaseStore store(String prefix, int waitReplicas) {
    LeaseStore s = RedisLeaseStore.open(setup.settings(prefix, waitReplicas));
    stores.add(s);
    return s;
  }

  private static List<ClaimRequest> requests(int from, int to, String holder) {
    List<ClaimRequest> list = new ArrayList<>();
    for (int i = from; i < to; i++) {
      list.add(new ClaimRequest("job-" + i, F1, holder, LONG));
    }
    return list;
  }

  /** Claims until no entry fails (the store is back), within 90 s. */
  private static List<ClaimResult> claimWhenBack(LeaseStore store, List<ClaimRequest> batch)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      List<ClaimResult> results = store.claimAll(batch);
      if (results.stream().noneMatch(r -> r.kind() == Kind.FAILED) || System.nanoTime() > end) {
        return results;
      }
      Thread.sleep(200);
    }
  }

  /** Outcome of the stalled-link scenario: names won twice, and fences handed out twice. */
  private record Counts(int wonBefore, int failedBefore, int duplicates, int fencesReused) {}

  /**
   * Five claims while the replica is in sync, five while its link is stalled, then SIGKILL of the
   * master; the replica is promoted; the old master comes back empty and becomes a replica; a
   * second client claims the same ten firings on the new master.
   */
  private Counts stalledReplicaThenMasterDies(int waitReplicas) throws Exception {
    long t0 = System.nanoTime();
    setup = new SentinelSetup();
    setup.awaitReplicaInSync();
    phase("set up and in sync", t0);
    String prefix = RedisServers.freshPrefix();
    LeaseStore a = store(prefix, waitReplicas);
    List<ClaimResult> before = new ArrayList<>(claimWhenBack(a, requests(0, 5, "node-a")));
    assertThat(before).allMatch(ClaimResult::won);
    setup.awaitReplicaInSync();

    setup.link.hold();
    before.addAll(a.claimAll(requests(5, 10, "node-a")));
    phase("claims before the kill", t0);
    setup.master.kill();
    setup.awaitReplicaPromoted();
    phase(setup.forced() ? "replica promoted (forced)" : "replica promoted", t0);
    setup.master.start(); // empty: the sentinels make it a replica of the new master

    LeaseStore b = store(prefix, waitReplicas);
    List<ClaimResult> after = claimWhenBack(b, requests(0, 10, "node-b"));
    phase("claims after the failover", t0);
    assertThat(after).noneMatch(r -> r.kind() == Kind.FAILED);
    assertThat(after.subList(0, 5)).allMatch(r -> r.kind() == Kind.ALREADY_RUN);
    int duplicates = 0;
    int reused = 0;
    for (int i = 0; i < 10; i++) {
      if (before.get(i).won() && after.get(i).won()) {
        duplicates++;
        if (after.get(i).lease().fence() <= before.get(i).lease().fence()) {
          reused++;
        }
      }
    }
    int won = (int) before.stream().filter(ClaimResult::won).count();
    int failed = (int) before.stream().filter(r -> r.kind() == Kind.FAILED).count();
    Counts counts = new Counts(won, failed, duplicates, reused);
    System.out.println("stalled replica, wait-replicas " + waitReplicas + ": " + counts);
    return counts;
  }

  @Test
  void withWaitReplicasAClaimTheStalledReplicaNeverGotIsNotAcquiredSoNothingRunsTwice()
      throws Exception {
    Counts counts = stalledReplicaThenMasterDies(1);
    assertThat(counts.failedBefore()).isEqualTo(5);
    assertThat(counts.wonBefore()).isEqualTo(5);
    assertThat(counts.duplicates()).isZero();
    assertThat(counts.fencesReused()).isZero();
  }

  /** The hazard that wait-replicas closes, shown on the same set-up. */
  @Test
  void withoutWaitReplicasClaimsTheStalledReplicaNeverGotRunTwiceAfterTheFailover()
      throws Exception {
    Counts counts = stalledReplicaThenMasterDies(0);
    assertThat(counts.wonBefore()).isEqualTo(10);
    assertThat(counts.duplicates()).isEqualTo(5);
    assertThat(counts.fencesReused()).isEqualTo(5);
  }

  /**
   * Three clients take turns on one job's firings (one a second of schedule, claimed as fast as
   * they go) while the master is SIGKILLed; the replica is promoted and the old master returns as
   * its replica. Returns firings won twice and fences seen twice or out of order.
   */
  private int[] masterKilledWhileClaimsRun(int waitReplicas) throws Exception {
    setup = new SentinelSetup();
    setup.awaitReplicaInSync();
    String prefix = RedisServers.freshPrefix();
    Map<Long, List<Long>> winners = new ConcurrentHashMap<>();
    List<Long> fencesInOrder = new CopyOnWriteArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      LeaseStore client = store(prefix, waitReplicas);
      String holder = "node-" + c;
      Thread t =
          new Thread(
              () -> {
                long k = 0;
                while (running.get()) {
                  Instant firing = F1.plusSeconds(k);
                  try {
                    // a short TTL: a claim whose answer was lost in the failover leaves a lease
                    // that nobody releases; it must expire for the job to go on
                    ClaimResult r = client.tryClaim("job", firing, holder, Duration.ofSeconds(3));
                    if (r.won()) {
                      synchronized (fencesInOrder) {
                        fencesInOrder.add(r.lease().fence());
                        winners
                            .computeIfAbsent(k, x -> new CopyOnWriteArrayList<>())
                            .add(r.lease().fence());
                      }
                      client.release(r.lease());
                      k++;
                    } else if (r.kind() == Kind.ALREADY_RUN) {
                      k = Math.max(k + 1, r.watermark().getEpochSecond() - F1.getEpochSecond());
                    } else {
                      pause(20);
                    }
                  } catch (LeaseStoreException e) {
                    lastError.set(e.getMessage());
                    pause(50);
                  }
                }
              });
      threads.add(t);
      t.start();
    }
    waitForWins(winners, 30);
    setup.master.kill();
    setup.awaitReplicaPromoted();
    if (setup.forced()) {
      System.out.println("the sentinels' election failed; the promotion was forced");
    }
    setup.master.start();
    int atPromotion = winners.size();
    waitForWins(winners, atPromotion + 30);
    running.set(false);
    for (Thread t : threads) {
      t.join(30_000);
    }
    int duplicates = (int) winners.values().stream().filter(w -> w.size() > 1).count();
    int fenceProblems = 0;
    for (int i = 1; i < fencesInOrder.size(); i++) {
      if (fencesInOrder.get(i) <= fencesInOrder.get(i - 1)) {
        fenceProblems++;
      }
    }
    System.out.printf(
        "master killed while claims run, wait-replicas %d: %d firings won, %d won twice,"
            + " %d fences not above the previous one%n",
        waitReplicas, winners.size(), duplicates, fenceProblems);
    return new int[] {duplicates, fenceProblems};
  }

  private void waitForWins(Map<Long, List<Long>> winners, int count) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (winners.size() < count) {
      assertThat(System.nanoTime())
          .as(
              "%d firings won within 120 s; last store error: %s; %s",
              count, lastError.get(), setup.describe())
          .isLessThan(end);
      Thread.sleep(20);
    }
  }

  /** Prints how long the scenario has run at the end of a phase (for a timeout's diagnosis). */
  private static void phase(String name, long start) {
    System.out.printf(
        "%s after %d ms%n", name, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  private static void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void withWaitReplicasAMasterKilledWhileClaimsRunLosesNoClaimAndReusesNoFence() throws Exception {
    int[] problems = masterKilledWhileClaimsRun(1);
    assertThat(problems[0]).as("firings won twice").isZero();
    assertThat(problems[1]).as("fences not above the previous one").isZero();
  }

  /**
   * Without wait-replicas the clients follow the failover and claims resume on the promoted
   * replica; what went wrong in between is counted and printed (docs/stores/redis.md), not
   * asserted: the window is as wide as the replication lag at the instant of the kill.
   */
  @Test
  void withoutWaitReplicasClaimsResumeOnThePromotedReplica() throws Exception {
    masterKilledWhileClaimsRun(0);
  }
}
