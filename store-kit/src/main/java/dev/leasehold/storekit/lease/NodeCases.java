package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Replicas;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Node records ({@link NodeRecords#publishNode}, {@link NodeRecords#nodes}): a published record
 * reads back from any client with every field and its expiry; a refresh replaces it; records of
 * several nodes are listed side by side, sorted by node id; an expired record is still listed
 * (stale) and then goes on its own. Every store of this repository keeps node records; a store that
 * does not (no {@link dev.leasehold.core.store.StoreBackend#nodeRecords}) skips these cases.
 */
public abstract class NodeCases extends LeaseStoreCases {

  private void keepingNodes() {
    nodeRecords();
  }

  private static Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MILLIS);
  }

  private static NodeRecord node(String id, Instant seen, String digest, List<String> leases) {
    return new NodeRecord(id, "1.2.3-test", seen.minusSeconds(30), seen, digest, leases);
  }

  private Optional<NodeRecord> find(NodeRecords client, String id) {
    return client.nodes().stream().filter(n -> n.nodeId().equals(id)).findFirst();
  }

  @Test
  void aPublishedRecordReadsBackFromAnotherClient() {
    keepingNodes();
    String id = freshName();
    Instant seen = now();
    NodeRecord published = node(id, seen, "digest-a", List.of("job-b", "job a"));
    nodeRecords().publishNode(published, LONG);

    NodeRecord read = find(newNodeRecords(), id).orElseThrow();
    assertThat(read).isEqualTo(published.publishedFor(LONG));
    assertThat(read.leases()).containsExactly("job a", "job-b");
    assertThat(read.expiresAt()).isEqualTo(seen.plus(LONG));
    assertThat(read.liveAt(now())).isTrue();
  }

  @Test
  void twoNodesAreListedSideBySideSortedById() {
    keepingNodes();
    String a = freshName() + "-a";
    String b = a.substring(0, a.length() - 2) + "-b";
    Instant seen = now();
    newNodeRecords().publishNode(node(b, seen, "digest-2", List.of()), LONG);
    newNodeRecords().publishNode(node(a, seen, "digest-1", List.of("x")), LONG);

    List<NodeRecord> mine =
        nodeRecords().nodes().stream()
            .filter(n -> n.nodeId().equals(a) || n.nodeId().equals(b))
            .toList();
    assertThat(mine).extracting(NodeRecord::nodeId).containsExactly(a, b);
    assertThat(mine).extracting(NodeRecord::jobDigest).containsExactly("digest-1", "digest-2");
    Replicas replicas = Replicas.of(mine, now());
    assertThat(replicas.live()).hasSize(2);
    assertThat(replicas.drift()).isTrue();
  }

  @Test
  void aRefreshReplacesTheRecord() {
    keepingNodes();
    String id = freshName();
    Instant first = now().minusSeconds(5);
    nodeRecords().publishNode(node(id, first, "old", List.of("j1")), LONG);
    Instant second = now();
    newNodeRecords().publishNode(node(id, second, "new", List.of()), LONG);

    List<NodeRecord> mine =
        nodeRecords().nodes().stream().filter(n -> n.nodeId().equals(id)).toList();
    assertThat(mine)
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.lastSeen()).isEqualTo(second);
              assertThat(n.jobDigest()).isEqualTo("new");
              assertThat(n.leases()).isEmpty();
              assertThat(n.expiresAt()).isEqualTo(second.plus(LONG));
            });
  }

  @Test
  void anExpiredRecordIsListedAsStaleAndThenGoesOnItsOwn() {
    keepingNodes();
    String id = freshName();
    Duration ttl = Duration.ofSeconds(2);
    // last seen three seconds ago with a two-second TTL: expired a second ago, kept a while yet
    Instant seen = now().minusSeconds(3);
    nodeRecords().publishNode(node(id, seen, "d", List.of()), ttl);

    NodeRecord read = find(newNodeRecords(), id).orElseThrow();
    assertThat(read.liveAt(now())).isFalse();
    assertThat(Replicas.of(List.of(read), now()).stale()).containsExactly(read);

    eventually(EXPIRY_LIMIT, () -> find(nodeRecords(), id).isEmpty());
  }

  @Test
  void aRecordThatIsNotRefreshedExpiresOnItsOwn() {
    keepingNodes();
    String id = freshName();
    nodeRecords().publishNode(node(id, now(), "d", List.of()), SHORT);
    eventually(EXPIRY_LIMIT, () -> find(newNodeRecords(), id).isEmpty());
  }
}
