package dev.leasehold.storekit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.Namespace;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Namespaces on a real store: two services in two namespaces, and one without a namespace, use the
 * same job name on one store and never see each other's leases, pauses or history; what they store
 * is the plain layout under {@link Namespace#ROOT}. A store's test class says how to open a backend
 * (an independent client on the same store each call); the cases close what they opened.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class NamespaceCases {
  private static final Duration TTL = Duration.ofSeconds(30);

  private final List<StoreBackend> opened = new ArrayList<>();
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final Namespace a = Namespace.of("a-" + suffix);
  private final Namespace b = Namespace.of("b-" + suffix);
  private final String job = "job-" + suffix;
  private final Instant firing = Instant.now().truncatedTo(ChronoUnit.SECONDS);

  /** A new, independent client on the same store. Closed by the cases after each test. */
  protected abstract StoreBackend createBackend();

  private StoreBackend open(Namespace namespace) {
    StoreBackend raw = createBackend();
    opened.add(raw);
    return namespace == null ? raw : namespace.wrap(raw);
  }

  @AfterEach
  final void closeBackends() {
    opened.forEach(StoreBackend::close);
    opened.clear();
  }

  @Test
  void forgettingAJobForgetsItInItsOwnNamespaceOnly() {
    StoreBackend backendA = open(a);
    LeaseStore inA = backendA.leaseStore();
    LeaseStore inB = open(b).leaseStore();
    assertThat(backendA.forgetting()).as("the decorator passes forget on").isPresent();
    assertThat(inA.release(inA.claim(job, firing, "node-a", TTL).orElseThrow())).isTrue();
    assertThat(inB.release(inB.claim(job, firing, "node-b", TTL).orElseThrow())).isTrue();

    assertThat(backendA.forgetting().orElseThrow().forget(job)).isTrue();
    assertThat(inA.inspect(job)).as("forgotten in its namespace").isEmpty();
    assertThat(inB.inspect(job)).as("the other namespace's record stays").isPresent();
  }

  @Test
  void nodeRecordsOfTwoNamespacesNeverMeet() {
    StoreBackend backendA = open(a);
    assertThat(backendA.nodeRecords()).as("every store keeps node records").isPresent();
    NodeRecords inA = backendA.nodeRecords().orElseThrow();
    NodeRecords inB = open(b).nodeRecords().orElseThrow();
    NodeRecords inNone = open(Namespace.NONE).nodeRecords().orElseThrow();
    String node = "gw-" + suffix;
    Instant now = Instant.now();
    inA.publishNode(new NodeRecord(node, "1", now, now, "digest-a", List.of(job)), TTL);
    inB.publishNode(new NodeRecord(node, "1", now, now, "digest-b", List.of()), TTL);
    inNone.publishNode(new NodeRecord(node, "1", now, now, "digest-none", List.of()), TTL);

    assertThat(inA.nodes())
        .as("a namespace sees its own replicas only, under their own ids")
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.nodeId()).isEqualTo(node);
              assertThat(n.jobDigest()).isEqualTo("digest-a");
              assertThat(n.leases()).containsExactly(job);
            });
    assertThat(inB.nodes()).extracting(NodeRecord::jobDigest).containsExactly("digest-b");
    assertThat(inNone.nodes())
        .as("no namespace sees no namespaced replica")
        .filteredOn(n -> n.nodeId().contains(suffix))
        .extracting(NodeRecord::jobDigest)
        .containsExactly("digest-none");
  }

  @Test
  void theSameNameInTwoNamespacesIsTwoLeases() {
    LeaseStore inA = open(a).leaseStore();
    LeaseStore inB = open(b).leaseStore();
    LeaseStore inNone = open(Namespace.NONE).leaseStore();
    LeaseStore raw = open(null).leaseStore();

    Lease wonInA = inA.claim(job, firing, "node-a", TTL).orElseThrow();
    assertThat(wonInA.name()).isEqualTo(job);
    Lease wonInB = inB.claim(job, firing, "node-b", TTL).orElseThrow();
    assertThat(wonInB.name()).isEqualTo(job);
    assertThat(inNone.claim(job, firing, "node-none", TTL)).isPresent();
    assertThat(inA.claim(job, firing.plusSeconds(1), "node-a2", TTL))
        .as("within a namespace the lease is still exclusive")
        .isEmpty();

    assertThat(inA.inspect(job).orElseThrow().holder()).isEqualTo("node-a");
    assertThat(inB.inspect(job).orElseThrow().holder()).isEqualTo("node-b");
    assertThat(inNone.inspect(job).orElseThrow().holder()).isEqualTo("node-none");
    assertThat(holdersOf(inA.list())).containsExactly("node-a");
    assertThat(holdersOf(inB.list())).containsExactly("node-b");
    assertThat(holdersOf(inNone.list())).containsExactly("node-none");
    for (LeaseStore store : List.of(inA, inB, inNone)) {
      assertThat(store.list())
          .extracting(LeaseState::name)
          .noneMatch(n -> n.startsWith("_leasehold.ns."));
    }

    assertThat(
            raw.inspect(Namespace.ROOT + a.value().orElseThrow() + "." + job)
                .orElseThrow()
                .holder())
        .isEqualTo("node-a");
    assertThat(raw.inspect(job).orElseThrow().holder())
        .as("no namespace: the name as it is")
        .isEqualTo("node-none");

    assertThat(inA.release(wonInA)).isTrue();
    assertThat(inB.inspect(job).orElseThrow().held()).isTrue();
    assertThat(inB.renew(wonInB, TTL)).isTrue();
    assertThat(inB.release(wonInB)).isTrue();
    assertThat(inA.acquire(job, "node-a", TTL).orElseThrow().name()).isEqualTo(job);
  }

  @Test
  void journalsOfTwoNamespacesNeverMeet() {
    StoreBackend backendA = open(a);
    assertThat(backendA.journal()).as("every store keeps a journal").isPresent();
    Journal inA = backendA.journal().orElseThrow();
    Journal inB = open(b).journal().orElseThrow();
    Journal inNone = open(Namespace.NONE).journal().orElseThrow();
    Journal raw = open(null).journal().orElseThrow();
    String stream = "audit-" + suffix;
    JournalEntry writtenInA = inA.append(stream, firing, "in a");
    assertThat(writtenInA.stream()).as("the stream's own name comes back").isEqualTo(stream);
    inB.append(stream, firing, "in b");
    inNone.append(stream, firing, "in none");

    assertThat(inA.recent(stream, 10)).containsExactly(writtenInA);
    assertThat(inB.recent(stream, 10)).extracting(JournalEntry::body).containsExactly("in b");
    assertThat(inNone.recent(stream, 10)).extracting(JournalEntry::body).containsExactly("in none");
    assertThat(raw.recent(Namespace.ROOT + a.value().orElseThrow() + "." + stream, 10))
        .as("stored under the namespaced name")
        .extracting(JournalEntry::body)
        .containsExactly("in a");

    assertThat(inA.prune(stream, firing.plusSeconds(1))).isEqualTo(1);
    assertThat(inA.recent(stream, 10)).isEmpty();
    assertThat(inB.recent(stream, 10)).as("a prune stays in its namespace").hasSize(1);

    String key = "digest-key-" + suffix;
    assertThat(inA.putIfAbsent(key, "key-a")).isEqualTo("key-a");
    assertThat(inB.putIfAbsent(key, "key-b")).as("each namespace its own key").isEqualTo("key-b");
    assertThat(inNone.putIfAbsent(key, "key-none")).isEqualTo("key-none");
    assertThat(open(a).journal().orElseThrow().putIfAbsent(key, "again")).isEqualTo("key-a");
    assertThatThrownBy(() -> inA.append("x".repeat(a.maxNameLength() + 1), firing, "too long"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal stream");
  }

  @Test
  void aBatchClaimsInItsOwnNamespace() {
    LeaseStore inA = open(a).leaseStore();
    LeaseStore inB = open(b).leaseStore();
    List<ClaimRequest> both =
        List.of(
            new ClaimRequest(job, firing, "node-a", TTL),
            new ClaimRequest(job + ".2", firing, "node-a", TTL));
    List<ClaimResult> inAResults = inA.claimAll(both);
    assertThat(inAResults).allMatch(ClaimResult::won);
    assertThat(inAResults).extracting(r -> r.lease().name()).containsExactly(job, job + ".2");
    assertThat(inB.claimAll(List.of(new ClaimRequest(job, firing, "node-b", TTL))))
        .allMatch(ClaimResult::won);
    assertThat(inA.claimAll(List.of(new ClaimRequest(job, firing, "node-a", TTL))))
        .noneMatch(ClaimResult::won);
  }

  @Test
  void aPauseStaysInItsNamespace() {
    StoreBackend backendA = open(a);
    StoreBackend backendB = open(b);
    LeaseStore inA = backendA.leaseStore();
    LeaseStore inB = backendB.leaseStore();
    assumeTrue(backendA.pauses().isPresent(), "this store does not keep pauses");
    Pauses pausesA = backendA.pauses().orElseThrow();
    Pauses pausesB = backendB.pauses().orElseThrow();

    pausesA.pause(job, "ops", "maintenance", false);
    assertThat(inA.tryClaim(job, firing, "node-a", TTL).kind()).isEqualTo(ClaimResult.Kind.PAUSED);
    assertThat(inB.tryClaim(job, firing, "node-b", TTL).kind()).isEqualTo(ClaimResult.Kind.WON);
    assertThat(inA.inspect(job).orElseThrow().paused()).isTrue();
    assertThat(inB.inspect(job).orElseThrow().paused()).isFalse();
    assertThat(inB.list()).filteredOn(s -> s.name().equals(job)).noneMatch(LeaseState::paused);
    assertThat(pausesB.resume(job, false)).as("b was never paused").isFalse();
    assertThat(pausesA.resume(job, false)).isTrue();
  }

  @Test
  void historyStaysInItsNamespace() {
    ExecutionLog inA = open(a).executionLog();
    ExecutionLog inB = open(b).executionLog();
    ExecutionLog inNone = open(Namespace.NONE).executionLog();
    ExecutionLog raw = open(null).executionLog();
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    ExecutionRecord a1 = record("node-a", now.minusSeconds(2));
    ExecutionRecord a2 = record("node-a", now.minusSeconds(1));
    ExecutionRecord b1 = record("node-b", now);
    inA.record(a1);
    inA.record(a2);
    inB.record(b1);

    assertThat(inA.recent(job, 10)).containsExactly(a2, a1);
    assertThat(inB.recent(job, 10)).containsExactly(b1);
    assertThat(inA.recent(null, 10)).containsExactly(a2, a1);
    assertThat(inB.recent(null, 10)).containsExactly(b1);
    assertThat(inA.recent(null, 1)).containsExactly(a2);
    assertThat(inNone.recent(job, 10)).isEmpty();
    assertThat(inNone.recent(null, 50))
        .extracting(ExecutionRecord::job)
        .noneMatch(n -> n.startsWith(Namespace.ROOT));
    assertThat(raw.recent(Namespace.ROOT + a.value().orElseThrow() + "." + job, 10))
        .extracting(ExecutionRecord::node)
        .containsExactly("node-a", "node-a");
  }

  @Test
  void aNameTooLongForTheNamespaceIsRefusedBeforeTheStore() {
    LeaseStore inA = open(a).leaseStore();
    String longest = "x".repeat(a.maxNameLength() - suffix.length()) + suffix;
    assertThat(inA.claim(longest, firing, "node-a", TTL).orElseThrow().name()).isEqualTo(longest);
    assertThat(inA.inspect(longest)).isPresent();
    assertThatThrownBy(() -> inA.claim(longest + "y", firing, "node-a", TTL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namespace '" + a.value().orElseThrow() + "'");
  }

  private List<String> holdersOf(List<LeaseState> states) {
    return states.stream().filter(s -> s.name().equals(job)).map(LeaseState::holder).toList();
  }

  private ExecutionRecord record(String node, Instant start) {
    return new ExecutionRecord(
        job,
        firing,
        node,
        1,
        TriggerKind.SCHEDULED,
        start,
        start.plusMillis(250),
        Outcome.SUCCEEDED,
        0,
        null);
  }
}
