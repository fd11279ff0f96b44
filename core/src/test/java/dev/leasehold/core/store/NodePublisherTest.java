package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.NodeRecord;
import dev.leasehold.core.testing.InMemoryExecutionLog;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class NodePublisherTest {
  private static final Instant NOW = Instant.parse("2026-12-01T08:00:20Z");

  @Test
  void startedItPublishesOnTheTimerAtOnceThenEveryRefreshUntilClosed() {
    VirtualTime time = new VirtualTime(NOW);
    InMemoryLeaseStore client = new InMemoryLeaseStore.Shared(time.clock()).client();
    NodePublisher publisher =
        new NodePublisher(
            client.backend(new InMemoryExecutionLog()), "a", "1.0", "digest", time.clock());
    List<Instant> reads = new CopyOnWriteArrayList<>();
    publisher.onRead(r -> reads.add(time.now()));
    try {
      assertThat(publisher.latest()).as("before the first publication").isEmpty();
      publisher.start(time, time.workers());
      time.advance(Duration.ZERO);
      assertThat(reads).as("published at start").containsExactly(NOW);
      assertThat(client.nodes()).extracting(NodeRecord::lastSeen).containsExactly(NOW);
      assertThat(publisher.latest()).isPresent();

      time.advance(NodePublisher.REFRESH.minusMillis(1));
      assertThat(reads).as("not before the refresh").hasSize(1);
      time.advance(Duration.ofMillis(1));
      time.advance(NodePublisher.REFRESH.multipliedBy(3));
      assertThat(reads)
          .as("every refresh")
          .containsExactly(
              NOW,
              NOW.plus(NodePublisher.REFRESH),
              NOW.plus(NodePublisher.REFRESH.multipliedBy(2)),
              NOW.plus(NodePublisher.REFRESH.multipliedBy(3)),
              NOW.plus(NodePublisher.REFRESH.multipliedBy(4)));

      publisher.close();
      time.advance(NodePublisher.TTL.multipliedBy(2));
      assertThat(reads).as("closed: the pending publication is called off").hasSize(5);
      assertThat(client.nodes())
          .as("the record is left to expire as last published")
          .extracting(NodeRecord::lastSeen)
          .containsExactly(NOW.plus(NodePublisher.REFRESH.multipliedBy(4)));
    } finally {
      time.shutdown();
    }
  }
}
