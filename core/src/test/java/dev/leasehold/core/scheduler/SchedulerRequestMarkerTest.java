package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.RequestSignals;
import dev.leasehold.core.schedule.AfterSchedule;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests through the {@link RequestMarker}, in virtual time: three replicas whose history signals
 * its request rows (as a daemon's does) poll the marker every 2 s and read the queue only when it
 * moved, while a request they offered waits, and at least every {@link TriggerRequests#RESCAN}.
 */
class SchedulerRequestMarkerTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:30Z");
  private static final Duration POLL = Duration.ofSeconds(2);

  private final VirtualTime time = new VirtualTime(T0);
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(time.clock());
  private final InMemoryExecutionLog history = new InMemoryExecutionLog();
  private final AtomicInteger queueReads = new AtomicInteger();
  private final List<Scheduler> schedulers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    time.shutdown();
  }

  /** The history as the replicas see it: queue reads counted. */
  private final ExecutionLog counted =
      new ExecutionLog() {
        @Override
        public void record(ExecutionRecord record) {
          history.record(record);
        }

        @Override
        public List<ExecutionRecord> recent(String job, int limit) {
          if (job.equals(TriggerRequest.QUEUE)) {
            queueReads.incrementAndGet();
          }
          return history.recent(job, limit);
        }

        @Override
        public int prune(HistoryRetention retention, Instant now, int limit) {
          return history.prune(retention, now, limit);
        }
      };

  private void replicas(int count, JobDefinition... jobs) {
    for (int i = 1; i <= count; i++) {
      replica("node-" + i, POLL, jobs);
    }
  }

  private JobRunner working(Duration work) {
    return ctx -> {
      time.sleep(work);
      return JobResult.succeeded();
    };
  }

  private JobDefinition hourly(String name) {
    return new JobDefinition(
        name,
        Schedule.every(Duration.ofHours(1), Duration.ZERO),
        JobPolicy.defaults(),
        working(Duration.ofSeconds(1)));
  }

  private List<ExecutionRecord> runs(String job) {
    return history.recent(job, 100).stream()
        .filter(r -> r.trigger() != TriggerKind.SCHEDULED)
        .toList();
  }

  @Test
  void idleReplicasReadTheQueueOnlyAtStartAndAtEachRescan() {
    replicas(3, hourly("report"));
    time.advance(Duration.ofMinutes(10).minusSeconds(1));
    // each replica: once at start, then once a minute whatever the marker says
    assertThat(queueReads.get()).isBetween(3, 3 * 11);
    assertThat(history.recent(TriggerRequest.QUEUE, 10)).isEmpty();
  }

  @Test
  void aRequestWhoseWriterBumpedTheMarkerIsTakenAtTheNextPollOnce() {
    replicas(3, hourly("report"));
    time.advance(Duration.ofMinutes(1).plusMillis(300));
    int before = queueReads.get();
    ExecutionLog cli = RequestMarker.signaling(history, server.client());
    TriggerRequest r =
        TriggerRequest.create("report", "ops/cli", time.clock().instant(), Duration.ofMinutes(1));
    cli.record(r.requestRow());
    time.advance(POLL.plusMillis(500));
    assertThat(r.takenIn(history.recent(TriggerRequest.QUEUE, 10)))
        .as("taken within one poll of the marker")
        .isPresent();
    time.advance(Duration.ofMinutes(3));
    assertThat(runs("report"))
        .singleElement()
        .extracting(ExecutionRecord::fireTime, ExecutionRecord::outcome)
        .containsExactly(r.at(), Outcome.SUCCEEDED);
    assertThat(queueReads.get() - before)
        .as("the queue is read for the bump, then idle again until the rescans")
        .isLessThan(3 * 10);
  }

  @Test
  void aRequestWrittenWithoutABumpIsStillTakenAtTheRescan() {
    replicas(3, hourly("report"));
    time.advance(Duration.ofSeconds(3));
    TriggerRequest r =
        TriggerRequest.create("report", "ops/cli", time.clock().instant(), Duration.ofMinutes(5));
    history.record(r.requestRow()); // no bump
    time.advance(TriggerRequests.RESCAN.plus(POLL.multipliedBy(2)));
    assertThat(runs("report"))
        .singleElement()
        .extracting(ExecutionRecord::fireTime)
        .isEqualTo(r.at());
  }

  @Test
  void aChainsHandOffBumpsTheMarkerSoAnotherReplicaRunsTheChildAtOnce() {
    JobDefinition upstream =
        new JobDefinition(
            "backup",
            Schedule.every(Duration.ofMinutes(1), Duration.ZERO),
            JobPolicy.defaults(),
            working(Duration.ofSeconds(1)));
    JobDefinition child =
        new JobDefinition(
            "verify",
            new AfterSchedule("backup", Set.of(AfterSchedule.On.SUCCEEDED)),
            JobPolicy.defaults(),
            working(Duration.ofSeconds(1)));
    // the upstream's replica writes the hand-off but takes no requests; the other one takes them
    replica("upstream", null, upstream, child);
    replica("child-only", POLL, child);
    time.advance(Duration.ofSeconds(35)); // 06:01:00 runs and ends at 06:01:01; then a poll or two
    assertThat(runs("verify"))
        .singleElement()
        .satisfies(
            run -> {
              assertThat(run.node()).isEqualTo("child-only");
              assertThat(run.fireTime()).isEqualTo(Instant.parse("2026-11-30T06:01:00Z"));
            });
  }

  @Test
  void whereTheStoreSignalsARequestIsTakenAtOnceAndTheMarkerIsReadOnlyNowAndThen() {
    List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    RequestSignals signals =
        new RequestSignals() {
          @Override
          public void signal() {
            listeners.forEach(Runnable::run);
          }

          @Override
          public AutoCloseable listen(Runnable wake) {
            listeners.add(wake);
            wake.run();
            return () -> listeners.remove(wake);
          }
        };
    AtomicInteger markerReads = new AtomicInteger();
    for (int i = 1; i <= 3; i++) {
      InMemoryLeaseStore client = server.client();
      Scheduler s =
          Scheduler.builder()
              .node("node-" + i)
              .store(client)
              .executionLog(
                  RequestMarker.signaling(
                      counted, countingInspects(client, markerReads), Optional.of(signals)))
              .clock(time.clock())
              .ticker(time)
              .timer(time)
              .workers(time.workers())
              .takeTriggerRequests(POLL)
              .job(hourly("report"))
              .build();
      schedulers.add(s);
      s.start();
    }
    time.advance(Duration.ofMinutes(2).plusMillis(300));
    assertThat(markerReads.get())
        .as("idle: the marker every %s, not every %s", TriggerRequests.LISTENING_POLL, POLL)
        .isLessThanOrEqualTo(3 * 6);
    ExecutionLog cli = RequestMarker.signaling(history, server.client(), Optional.of(signals));
    TriggerRequest r =
        TriggerRequest.create("report", "ops/cli", time.clock().instant(), Duration.ofMinutes(1));
    cli.record(r.requestRow());
    time.advance(Duration.ofMillis(500));
    assertThat(r.takenIn(history.recent(TriggerRequest.QUEUE, 10)))
        .as("taken at the signal, long before the next look at the marker")
        .isPresent();
    time.advance(Duration.ofMinutes(1));
    assertThat(runs("report"))
        .singleElement()
        .extracting(ExecutionRecord::fireTime)
        .isEqualTo(r.at());
    for (Scheduler s : schedulers) {
      s.stop(Duration.ZERO);
    }
    schedulers.clear();
    assertThat(listeners).as("stopped: no longer listening").isEmpty();
  }

  /** {@code client} with its reads of the marker counted. */
  private static LeaseStore countingInspects(InMemoryLeaseStore client, AtomicInteger reads) {
    return (LeaseStore)
        java.lang.reflect.Proxy.newProxyInstance(
            LeaseStore.class.getClassLoader(),
            new Class<?>[] {LeaseStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("inspect") && RequestMarker.NAME.equals(args[0])) {
                reads.incrementAndGet();
              }
              try {
                return method.invoke(client, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private void replica(String node, Duration poll, JobDefinition... jobs) {
    Scheduler.Builder b =
        Scheduler.builder()
            .node(node)
            .store(server.client())
            .executionLog(RequestMarker.signaling(counted, server.client()))
            .clock(time.clock())
            .ticker(time)
            .timer(time)
            .workers(time.workers());
    if (poll != null) {
      b.takeTriggerRequests(poll);
    }
    for (JobDefinition job : jobs) {
      b.job(job);
    }
    Scheduler s = b.build();
    schedulers.add(s);
    s.start();
  }
}
