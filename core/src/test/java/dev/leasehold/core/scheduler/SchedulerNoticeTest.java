package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NoticeNames;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Notifications handed over between replicas, in virtual time: three replicas share one store and
 * one history; each has its own {@link Notices} that records what it was asked to deliver. A
 * replica "dies" by losing its store (every call throws) while its notifier hangs.
 */
class SchedulerNoticeTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final JobPolicy POLICY =
      new JobPolicy(Duration.ofSeconds(6), Duration.ofSeconds(2), null, Duration.ofMinutes(1));

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final List<Scheduler> schedulers = new ArrayList<>();

  /** A delivery a replica made: by whom, of which row. */
  record Delivery(String by, String event, ExecutionRecord row) {}

  /** Every delivery, in order; a delivery that hung (its replica died) is not in it. */
  private final List<Delivery> delivered = new CopyOnWriteArrayList<>();

  /** Deliveries that started, delivered or not. */
  private final List<Delivery> started = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  /** What a replica's notifier does when asked to deliver. */
  interface Behaviour {
    /**
     * @return whether the delivery went through
     */
    boolean deliver(Delivery d) throws InterruptedException;
  }

  private Notices notices(String node, Behaviour behaviour) {
    return new Notices() {
      @Override
      public boolean notifies(String job) {
        return job.equals("doomed");
      }

      @Override
      public Optional<String> event(ExecutionRecord row) {
        return Optional.of("failed");
      }

      @Override
      public void deliver(String event, ExecutionRecord row) {
        Delivery d = new Delivery(node, event, row);
        started.add(d);
        try {
          if (behaviour.deliver(d)) {
            delivered.add(d);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }

  private Scheduler replica(String node, Clock clock, LeaseStore store, Behaviour behaviour) {
    JobDefinition doomed =
        new JobDefinition(
            "doomed",
            Schedule.every(Duration.ofMinutes(1), Duration.ZERO),
            POLICY.withRetry(new RetryPolicy(2, Duration.ofSeconds(5), Duration.ofMinutes(1))),
            ctx -> {
              time.sleep(Duration.ofSeconds(1));
              return JobResult.failed("attempt " + ctx.attempt());
            });
    Scheduler s =
        Scheduler.builder()
            .node(node)
            .store(store)
            .executionLog(history)
            .clock(clock)
            .ticker(time)
            .timer(time)
            .workers(time.workers())
            .job(doomed)
            .notices(notices(node, behaviour))
            .build();
    schedulers.add(s);
    s.start();
    return s;
  }

  private static final Behaviour DELIVERS = d -> true;

  @Test
  void aJobThatAlwaysFailsIsNotifiedOncePerFiringByItsLastAttempt() {
    for (int i = 1; i <= 3; i++) {
      replica("node-" + i, time.clock(), server.client(), DELIVERS);
    }
    time.advance(Duration.ofMinutes(4).plusSeconds(30));

    List<ExecutionRecord> finals =
        history.recent("doomed", 100).stream().filter(r -> r.attempt() == 2).toList();
    assertThat(finals).hasSize(5); // firings 0, 1, 2, 3 and 4 minutes
    assertThat(delivered)
        .extracting(d -> d.row().fireTime())
        .containsExactlyInAnyOrderElementsOf(
            finals.stream().map(ExecutionRecord::fireTime).toList())
        .doesNotHaveDuplicates();
    assertThat(delivered).allMatch(d -> d.row().attempt() == 2);
    assertThat(delivered)
        .as("the replica that wrote the last row sends it")
        .allMatch(d -> d.by().equals(d.row().node()));
    assertThat(started).hasSameSizeAs(delivered);
  }

  @Test
  void whenTheReplicaThatWroteTheLastRowDiesBeforeSendingAnotherSendsItOnce() {
    // node-1's clock runs ahead: it claims both attempts of the first firing; when asked to send,
    // it loses its store (its renewals fail as a dead process's would) and its notifier hangs
    Killable dying = new Killable(server.client());
    Behaviour dies =
        d -> {
          dying.dead = true;
          time.sleep(Duration.ofHours(1));
          return false;
        };
    replica("node-1", time.clock(Duration.ofMillis(500)), dying, dies);
    replica("node-2", time.clock(), server.client(), DELIVERS);
    replica("node-3", time.clock(), server.client(), DELIVERS);
    time.advance(Duration.ofSeconds(50));

    ExecutionRecord last =
        history.recent("doomed", 100).stream()
            .filter(r -> r.fireTime().equals(T0) && r.attempt() == 2)
            .findFirst()
            .orElseThrow();
    assertThat(last.node()).isEqualTo("node-1");
    assertThat(started).extracting(Delivery::by).first().isEqualTo("node-1");
    assertThat(delivered)
        .as("one delivery of firing %s, by a live replica, of the row node-1 wrote", T0)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.by()).isIn("node-2", "node-3");
              assertThat(d.row()).isEqualTo(last);
            });
    assertThat(server.client().inspect(NoticeNames.mark("doomed")))
        .map(LeaseState::lastFire)
        .contains(T0);

    // the next firings run on the live replicas and are notified once each, by their writers
    time.advance(Duration.ofMinutes(2));
    List<Instant> later =
        delivered.stream().map(d -> d.row().fireTime()).filter(f -> f.isAfter(T0)).toList();
    assertThat(later).containsExactly(T0.plusSeconds(60), T0.plusSeconds(120));
    assertThat(delivered).extracting(d -> d.row().fireTime()).doesNotHaveDuplicates();
  }

  @Test
  void aSenderThatDiesAfterDeliveringButBeforeMarkingIsFollowedByOneDuplicateWithTheSameRow() {
    Killable dying = new Killable(server.client());
    Behaviour deliversThenDies =
        d -> {
          dying.dead = true; // delivered, but the mark can no longer be written
          return true;
        };
    replica("node-1", time.clock(Duration.ofMillis(500)), dying, deliversThenDies);
    replica("node-2", time.clock(), server.client(), DELIVERS);
    replica("node-3", time.clock(), server.client(), DELIVERS);
    time.advance(Duration.ofSeconds(50));

    assertThat(delivered).extracting(d -> d.row().fireTime()).containsExactly(T0, T0);
    assertThat(delivered.get(0).by()).isEqualTo("node-1");
    assertThat(delivered.get(1).by()).isIn("node-2", "node-3");
    assertThat(delivered.get(1).row())
        .as("the same row, so the same event id")
        .isEqualTo(delivered.get(0).row());
  }

  @Test
  void namesFitUnderAnyNamespaceAndTellJobsApart() {
    String longName = "a".repeat(100);
    String other = "a".repeat(99) + "b";
    assertThat(NoticeNames.desk("doomed")).isEqualTo("_leasehold.notify.doomed");
    assertThat(NoticeNames.mark("doomed")).isEqualTo("_leasehold.notified.doomed");
    assertThat(NoticeNames.mark(longName)).hasSizeLessThanOrEqualTo(NoticeNames.MAX_LENGTH);
    assertThat(NoticeNames.desk(longName)).hasSizeLessThanOrEqualTo(NoticeNames.MAX_LENGTH);
    assertThat(NoticeNames.mark(longName)).isNotEqualTo(NoticeNames.mark(other));
    assertThat(NoticeNames.isNoticeName(NoticeNames.desk(longName))).isTrue();
    assertThat(NoticeNames.isNoticeName("_leasehold.history-prune")).isFalse();
  }

  /** A store client that, once dead, refuses every call as an unreachable store does. */
  static final class Killable implements LeaseStore {
    private final LeaseStore delegate;
    volatile boolean dead;

    Killable(LeaseStore delegate) {
      this.delegate = delegate;
    }

    private LeaseStore live() {
      if (dead) {
        throw new LeaseStoreException("the replica is dead");
      }
      return delegate;
    }

    @Override
    public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
      return live().claim(name, firing, holder, ttl);
    }

    @Override
    public dev.leasehold.core.lease.ClaimResult tryClaim(
        String name, Instant firing, String holder, Duration ttl) {
      return live().tryClaim(name, firing, holder, ttl);
    }

    @Override
    public Optional<Lease> acquire(String name, String holder, Duration ttl) {
      return live().acquire(name, holder, ttl);
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      return live().renew(lease, ttl);
    }

    @Override
    public boolean release(Lease lease) {
      return live().release(lease);
    }

    @Override
    public Optional<LeaseState> inspect(String name) {
      return live().inspect(name);
    }

    @Override
    public List<LeaseState> list() {
      return live().list();
    }
  }
}
