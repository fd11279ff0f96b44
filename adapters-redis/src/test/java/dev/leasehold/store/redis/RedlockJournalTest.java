package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The journal on a Redlock of three redis-server processes, started per test so masters can be set
 * by hand and killed: a write-once key is the value a majority holds, a split vote of first writers
 * settles on the least value for every client, and a majority of masters is needed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockJournalTest {
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

  private RedisServers servers;
  private final String key = "key-" + UUID.randomUUID().toString().substring(0, 8);

  @AfterEach
  void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private Journal client() {
    return servers
        .closeWith(new RedisStoreFactory().open(servers.redlockSettings()))
        .journal()
        .orElseThrow();
  }

  private String stored() {
    return servers.redlockSettings().keyPrefix() + "{journal-key." + key + "}:value";
  }

  private void setOn(int master, String value) {
    SharedRedis.with(servers.get(master).url(), r -> r.set(stored(), value));
  }

  private String on(int master) {
    return SharedRedis.with(servers.get(master).url(), r -> r.get(stored()));
  }

  @Test
  void aSplitVoteOfFirstWritersSettlesOnTheLeastValueForEveryClient() {
    servers = RedisServers.start(3, false);
    setOn(0, "value-c");
    setOn(1, "value-a");
    setOn(2, "value-b");

    assertThat(client().putIfAbsent(key, "value-z")).isEqualTo("value-a");
    assertThat(client().putIfAbsent(key, "value-0")).isEqualTo("value-a");
    assertThat(List.of(on(0), on(1), on(2))).containsOnly("value-a");
  }

  @Test
  void theValueAMajorityHoldsIsTheAnswerAndTheOtherMasterIsSetToIt() {
    servers = RedisServers.start(3, false);
    setOn(0, "value-x");
    setOn(1, "value-y");
    setOn(2, "value-y");

    assertThat(client().putIfAbsent(key, "value-a")).isEqualTo("value-y");
    assertThat(on(0)).isEqualTo("value-y");
  }

  @Test
  void withOneMasterDownTheJournalWorksAndAnEntryIsReadByAnotherClient() {
    servers = RedisServers.start(3, false);
    Journal writer = client();
    servers.get(2).kill();
    String stream = "stream-" + key;
    JournalEntry first = writer.append(stream, T, "first");
    JournalEntry second = writer.append(stream, T.plusMillis(1), "second");

    assertThat(client().recent(stream, 10)).containsExactly(second, first);
    assertThat(client().putIfAbsent(key, "mine")).isEqualTo("mine");
    assertThat(client().putIfAbsent(key, "theirs")).isEqualTo("mine");
    assertThat(client().prune(stream, T.plusMillis(1))).isEqualTo(1);
    assertThat(writer.recent(stream, 10)).containsExactly(second);
  }

  @Test
  void aSplitVoteWithAMasterSilentIsAStoreErrorNotAnAnswer() {
    servers = RedisServers.start(3, false);
    setOn(0, "value-a");
    setOn(1, "value-b");
    Journal journal = client();
    servers.get(2).kill();

    // the silent master may hold either value: nobody can tell which one won
    assertThatThrownBy(() -> journal.putIfAbsent(key, "value-c"))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("2 of 3");
    assertThat(List.of(on(0), on(1))).containsExactly("value-a", "value-b");
  }

  @Test
  void withTwoMastersDownTheJournalFailsInsteadOfAnswering() {
    servers = RedisServers.start(3, false);
    Journal journal = client();
    servers.get(1).kill();
    servers.get(2).kill();

    assertThatThrownBy(() -> journal.append("stream", T, "x"))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("1 of 3 Redis nodes answered, 2 needed");
    assertThatThrownBy(() -> journal.recent("stream", 1)).isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> journal.putIfAbsent(key, "v")).isInstanceOf(LeaseStoreException.class);
  }
}
