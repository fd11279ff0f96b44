package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.scheduler.JobSlot.Phase;
import dev.leasehold.core.scheduler.SlotMachine.Event;
import dev.leasehold.core.scheduler.SlotMachine.Transition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A job slot's life as a table: every (phase, event) pair the scheduler knows, the phase it leads
 * to and the effects, in order; every pair not listed is refused. No threads, no clock: the facts
 * an event carries (older than the skew allowance, worth retrying, whether the scheduler still
 * takes firings) are decided by the owner at the event's virtual instant, and are columns here.
 * Firings are seconds after 06:00:00.
 */
class SlotMachineTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final Lease LEASE = new Lease("tick", "n1", "t", 7, Duration.ofSeconds(30), null);
  private static final JobContext RAN =
      new JobContext("tick", at(10), 7, "n1", 1, TriggerKind.SCHEDULED, null);
  private static final ExecutionRecord ROW =
      new ExecutionRecord(
          "tick",
          at(10),
          "n1",
          7,
          TriggerKind.SCHEDULED,
          at(10),
          at(11),
          Outcome.FAILED,
          1,
          null,
          null);

  private static final ManualRun MANUAL = ManualRun.onCallingThread(at(30));

  private static Instant at(double seconds) {
    return T0.plusMillis(Math.round(seconds * 1000));
  }

  /** The events of the table, by name: the facts they carry are in the name. */
  private static final Map<String, Event> EVENTS = new HashMap<>();

  static {
    EVENTS.put("due 20", new SlotMachine.Due(at(20)));
    EVENTS.put("due 20 replacing", new SlotMachine.Due(at(20), true));
    EVENTS.put("detached", new SlotMachine.Detached());
    EVENTS.put("timer past grace 20", new SlotMachine.NotRun(at(20), Outcome.MISSED, "late"));
    EVENTS.put("won in time", new SlotMachine.Won(at(10), LEASE, 0, null));
    EVENTS.put("won late", new SlotMachine.Won(at(10), LEASE, 0, "answer after validity"));
    EVENTS.put("held young", new SlotMachine.Held(at(10), 1, "n2", true, false, false, false));
    EVENTS.put(
        "held older than skew", new SlotMachine.Held(at(10), 1, "n2", true, false, true, false));
    EVENTS.put("held retry older", new SlotMachine.Held(at(10), 1, "n2", true, true, true, false));
    EVENTS.put("held stopping", new SlotMachine.Held(at(10), 1, "n2", false, false, false, false));
    EVENTS.put(
        "held older buffered", new SlotMachine.Held(at(10), 1, "n2", true, false, true, true));
    EVENTS.put(
        "held young buffered", new SlotMachine.Held(at(10), 1, "n2", true, false, false, true));
    EVENTS.put(
        "held stopping buffered", new SlotMachine.Held(at(10), 1, "n2", false, false, true, true));
    EVENTS.put("already run", new SlotMachine.AlreadyRun(at(10)));
    EVENTS.put("paused", new SlotMachine.Paused(at(10)));
    EVENTS.put("pause recorded", new SlotMachine.PauseRecorded());
    EVENTS.put("failed worth retrying", new SlotMachine.Failed(at(10), 2, true, true));
    EVENTS.put("failed past worth", new SlotMachine.Failed(at(10), 2, true, false));
    EVENTS.put("failed stopping", new SlotMachine.Failed(at(10), 2, false, true));
    EVENTS.put("lease poll", new SlotMachine.LeasePoll(at(10), 1, true));
    EVENTS.put("lease poll stopping", new SlotMachine.LeasePoll(at(10), 1, false));
    EVENTS.put("backoff ended 20", new SlotMachine.BackoffEnded(at(20), 2, true, false));
    EVENTS.put("backoff ended missed", new SlotMachine.BackoffEnded(at(20), 2, true, true));
    EVENTS.put("backoff ended stopping", new SlotMachine.BackoffEnded(at(20), 2, false, false));
    EVENTS.put("reported", new SlotMachine.Reported());
    EVENTS.put("late reported", new SlotMachine.LateReported());
    EVENTS.put("stopped", new SlotMachine.Stopped());
    EVENTS.put("run ended", new SlotMachine.RunEnded(RAN, ROW, FiringRules.AfterRun.FINAL));
    EVENTS.put("run ended no row", new SlotMachine.RunEnded(RAN, null, FiringRules.AfterRun.FINAL));
    EVENTS.put("idle queued 20", new SlotMachine.Idle(at(20), true, false, true));
    EVENTS.put("idle unrun", new SlotMachine.Idle(null, true, false, true));
    EVENTS.put("idle unrun after reports", new SlotMachine.Idle(null, true, true, true));
    EVENTS.put("idle nothing", new SlotMachine.Idle(null, false, false, true));
    EVENTS.put("idle stopping", new SlotMachine.Idle(null, true, false, false));
    EVENTS.put("settle due", new SlotMachine.SettleDue(true, true));
    EVENTS.put("settle due nothing", new SlotMachine.SettleDue(false, true));
    EVENTS.put("trigger 30", new SlotMachine.Trigger(MANUAL));
    EVENTS.put("acquired", new SlotMachine.Acquired(MANUAL, LEASE, 0, false, null));
    EVENTS.put("acquired late", new SlotMachine.Acquired(MANUAL, LEASE, 0, true, null));
    EVENTS.put("acquire refused", new SlotMachine.Acquired(MANUAL, null, 0, false, null));
  }

  /** phase | event | next phase | effects, in order. Every other pair is refused. */
  private static final String[] TABLE = {
    "IDLE              | due 20                   | CLAIMING          | Claim 20 #1",
    "IDLE              | due 20 replacing         | CLAIMING          | Claim 20 #1",
    "IDLE              | timer past grace 20      | CLAIMING          | GiveUp 20 MISSED, Report",
    "IDLE              | idle queued 20           | CLAIMING          | Claim 20 #1",
    "IDLE              | idle unrun               | CLAIMING          | Report",
    "IDLE              | idle unrun after reports | IDLE              | SettleLater",
    "IDLE              | idle nothing             | IDLE              | -",
    "IDLE              | idle stopping            | IDLE              | -",
    "IDLE              | settle due               | CLAIMING          | Report",
    "IDLE              | settle due nothing       | IDLE              | -",
    "IDLE              | trigger 30               | CLAIMING          | Acquire",
    "CLAIMING          | trigger 30               | CLAIMING          | Refuse",
    "CLAIMING          | acquired                 | RUNNING           | Run 30 manual",
    "CLAIMING          | acquired late            | CLAIMING          | ReleaseLate",
    "CLAIMING          | acquire refused          | IDLE              | Answer, Next",
    "WAITING_FOR_LEASE | trigger 30               | WAITING_FOR_LEASE | Refuse",
    "BACKING_OFF       | trigger 30               | BACKING_OFF       | Refuse",
    "RUNNING           | trigger 30               | RUNNING           | Refuse",
    "CLAIMING          | due 20                   | CLAIMING          | Queue 20",
    "CLAIMING          | due 20 replacing         | CLAIMING          | Queue 20",
    "CLAIMING          | timer past grace 20      | CLAIMING          | GiveUp 20 MISSED",
    "CLAIMING          | won in time              | RUNNING           | Run 10",
    "CLAIMING          | won late                 | CLAIMING          | ReportLate 10",
    "CLAIMING          | held young               | WAITING_FOR_LEASE | PollLease 10 #1",
    "CLAIMING          | held older than skew     | IDLE              | GiveUp 10 MISSED, Next",
    "CLAIMING          | held retry older         | IDLE              | ForgetRetry 10, Next",
    "CLAIMING          | held stopping            | IDLE              | Next",
    "CLAIMING          | held older buffered      | WAITING_FOR_LEASE | PollLease 10 #1",
    "CLAIMING          | held young buffered      | WAITING_FOR_LEASE | PollLease 10 #1",
    "CLAIMING          | held stopping buffered   | IDLE              | Next",
    "CLAIMING          | already run              | IDLE              | FollowRetry 10, Next",
    "CLAIMING          | paused                   | CLAIMING          | RecordPaused 10",
    "CLAIMING          | pause recorded           | IDLE              | Next, WatchResume",
    "CLAIMING          | failed worth retrying    | BACKING_OFF       | Backoff 10 #2",
    "CLAIMING          | failed past worth        | IDLE              | GiveUp 10 MISSED, Next",
    "CLAIMING          | failed stopping          | IDLE              | Next",
    "CLAIMING          | reported                 | IDLE              | Next after reports",
    "CLAIMING          | late reported            | IDLE              | Next",
    "CLAIMING          | stopped                  | IDLE              | Next",
    "WAITING_FOR_LEASE | due 20                   | WAITING_FOR_LEASE | Queue 20",
    "WAITING_FOR_LEASE | due 20 replacing         | WAITING_FOR_LEASE | Queue 20",
    "WAITING_FOR_LEASE | timer past grace 20      | WAITING_FOR_LEASE | GiveUp 20 MISSED",
    "WAITING_FOR_LEASE | lease poll               | CLAIMING          | Claim 10 #1",
    "WAITING_FOR_LEASE | lease poll stopping      | IDLE              | Next",
    "WAITING_FOR_LEASE | stopped                  | IDLE              | Next",
    "BACKING_OFF       | due 20                   | CLAIMING          | Claim 20 #1",
    "BACKING_OFF       | due 20 replacing         | CLAIMING          | Claim 20 #1",
    "BACKING_OFF       | timer past grace 20      | BACKING_OFF       | GiveUp 20 MISSED",
    "BACKING_OFF       | backoff ended 20         | CLAIMING          | Claim 20 #3",
    "BACKING_OFF       | backoff ended missed     | IDLE              | GiveUp 20 MISSED, Next",
    "BACKING_OFF       | backoff ended stopping   | IDLE              | Next",
    "BACKING_OFF       | stopped                  | IDLE              | Next",
    "RUNNING           | due 20                   | RUNNING           | Queue 20",
    "RUNNING           | due 20 replacing         | RUNNING           | Queue 20, Replace 20",
    "RUNNING           | detached                 | IDLE              | Next",
    "RUNNING           | timer past grace 20      | RUNNING           | GiveUp 20 MISSED",
    "RUNNING           | run ended                | IDLE              | Ran, Next after run 10",
    "RUNNING           | run ended no row         | IDLE              | Next after run 10",
  };

  private static Map<String, String[]> rows() {
    Map<String, String[]> rows = new HashMap<>();
    for (String line : TABLE) {
      String[] cells = Arrays.stream(line.split("\\|")).map(String::trim).toArray(String[]::new);
      assertThat(EVENTS).as(line).containsKey(cells[1]);
      assertThat(rows.put(cells[0] + "|" + cells[1], cells)).as("listed twice: " + line).isNull();
    }
    return rows;
  }

  static Stream<Arguments> everyPair() {
    List<Arguments> pairs = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      EVENTS.keySet().stream().sorted().forEach(event -> pairs.add(Arguments.of(phase, event)));
    }
    return pairs.stream();
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("everyPair")
  void eachPhaseAndEventLeadsWhereTheTableSaysOrIsRefused(Phase phase, String event) {
    String[] row = rows().get(phase + "|" + event);
    if (row == null) {
      assertThatThrownBy(() -> SlotMachine.next(phase, EVENTS.get(event)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("no transition from " + phase);
      return;
    }
    Transition t = SlotMachine.next(phase, EVENTS.get(event));
    assertThat(t.to()).isEqualTo(Phase.valueOf(row[2]));
    assertThat(describe(t.effects())).isEqualTo(row[3]);
  }

  @Test
  void everyTransitionOfTheTableIsOneTheSlotAllows() {
    for (String[] row : rows().values()) {
      Phase from = Phase.valueOf(row[0]);
      Phase to = Phase.valueOf(row[2]);
      assertThat(from == to || from.canBecome(to)).as(String.join(" | ", row)).isTrue();
    }
  }

  @Test
  void aHeldClaimGivenUpNamesTheHolder() {
    Transition t = SlotMachine.next(Phase.CLAIMING, EVENTS.get("held older than skew"));
    assertThat(((SlotEffect.GiveUp) t.effects().get(0)).why())
        .isEqualTo("its lease was held by an earlier firing of n2");
  }

  private static String describe(List<SlotEffect> effects) {
    if (effects.isEmpty()) {
      return "-";
    }
    return effects.stream().map(SlotMachineTest::describe).collect(Collectors.joining(", "));
  }

  private static String describe(SlotEffect e) {
    String name = e.getClass().getSimpleName();
    if (e instanceof SlotEffect.Claim c) {
      return name + " " + seconds(c.firing()) + " #" + c.attempt();
    } else if (e instanceof SlotEffect.Queue q) {
      return name + " " + seconds(q.firing());
    } else if (e instanceof SlotEffect.Replace r) {
      return name + " " + seconds(r.firing());
    } else if (e instanceof SlotEffect.Run r) {
      return name + " " + seconds(r.firing()) + (r.manual() == null ? "" : " manual");
    } else if (e instanceof SlotEffect.ReportLate l) {
      return name + " " + seconds(l.firing());
    } else if (e instanceof SlotEffect.RecordPaused p) {
      return name + " " + seconds(p.firing());
    } else if (e instanceof SlotEffect.GiveUp g) {
      return name + " " + seconds(g.firing()) + " " + g.outcome();
    } else if (e instanceof SlotEffect.PollLease p) {
      return name + " " + seconds(p.firing()) + " #" + p.attempt();
    } else if (e instanceof SlotEffect.Backoff b) {
      return name + " " + seconds(b.firing()) + " #" + b.attempt();
    } else if (e instanceof SlotEffect.FollowRetry f) {
      return name + " " + seconds(f.firing());
    } else if (e instanceof SlotEffect.ForgetRetry f) {
      return name + " " + seconds(f.firing());
    } else if (e instanceof SlotEffect.Next n) {
      return name
          + (n.afterReports() ? " after reports" : "")
          + (n.ran() == null ? "" : " after run " + seconds(n.ran().firing()));
    }
    return name;
  }

  private static String seconds(Instant firing) {
    return String.valueOf(Duration.between(T0, firing).toSeconds());
  }
}
