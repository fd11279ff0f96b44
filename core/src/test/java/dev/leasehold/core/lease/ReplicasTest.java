package dev.leasehold.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Live, stale and drift at one instant; the record's text form. */
class ReplicasTest {
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(15);

  private static NodeRecord seen(String id, Instant at, String digest) {
    return new NodeRecord(id, "1.0", T.minusSeconds(3600), at, digest, List.of("b", "a"))
        .publishedFor(TTL);
  }

  @Test
  void liveUntilTheTtlThenStaleForThreeTtlsThenLeftOut() {
    List<NodeRecord> records =
        List.of(
            seen("fresh", T.minusSeconds(1), "d"),
            seen("expired", T.minusSeconds(15), "d"),
            seen("old", T.minusSeconds(60), "d"));
    Replicas r = Replicas.of(records, T);
    assertThat(r.live()).extracting(NodeRecord::nodeId).containsExactly("fresh");
    assertThat(r.stale()).extracting(NodeRecord::nodeId).containsExactly("expired");
    assertThat(r.drift()).isFalse();
    assertThat(NodeRecord.keepFor(TTL)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void driftNamesTheLiveReplicasOffTheMostCommonDigestAndIgnoresStaleOnes() {
    Replicas r =
        Replicas.of(
            List.of(
                seen("c", T, "new"),
                seen("a", T, "old"),
                seen("b", T, "new"),
                seen("gone", T.minusSeconds(30), "other")),
            T);
    assertThat(r.drifted()).containsExactly("a");
    assertThat(r.byDigest())
        .containsEntry("new", List.of("b", "c"))
        .containsEntry("old", List.of("a"));

    Replicas tie = Replicas.of(List.of(seen("y", T, "2"), seen("x", T, "1")), T);
    assertThat(tie.drifted())
        .as("a tie: the first node id's digest is the common one")
        .containsExactly("y");
  }

  @Test
  void aRecordSurvivesItsTextFormWithAnyCharacters() {
    NodeRecord r =
        new NodeRecord("host 1/ü%", "1.0 beta", T, T, "sha256:x y", List.of("job-b", "job a"))
            .publishedFor(TTL);
    assertThat(NodeCodec.decode(NodeCodec.encode(r))).isEqualTo(r);
    assertThat(r.leases()).containsExactly("job a", "job-b");
    assertThat(NodeCodec.decode("n2 something else")).isNull();
    assertThat(NodeCodec.decode(null)).isNull();
  }
}
