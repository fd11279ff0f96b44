package dev.leasehold.store.redis;

import static dev.leasehold.store.redis.FakeRespServer.array;
import static dev.leasehold.store.redis.FakeRespServer.bulk;
import static dev.leasehold.store.redis.FakeRespServer.integer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Servers that speak Redis's protocol without running Leasehold's scripts as Redis does (a scripted
 * fake at the wire level, {@link FakeRespServer}): every such answer is refused as a store failure
 * naming what the server did, so nothing runs on the strength of it (fail closed).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisLookAlikeServerTest {
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Instant F2 = F1.plusSeconds(60);
  private static final long NOW = F1.toEpochMilli();

  private FakeRespServer server;
  private LeaseStore store;

  private LeaseStore storeOn(Function<List<String>, String> script) throws Exception {
    server = new FakeRespServer(script);
    store =
        RedisLeaseStore.open(
            new StoreSettings(
                "redis",
                server.url(),
                List.of(),
                null,
                null,
                null,
                Duration.ofSeconds(3),
                Map.of()));
    return store;
  }

  @AfterEach
  void stop() throws Exception {
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The reply of a granted claim, as the script would give it: fence 1, nothing before. */
  private static String grantedFenceOne() {
    return array(array(integer(1), integer(1), integer(NOW), bulk(""), integer(0)));
  }

  @Test
  void aServerThatAnswersOkToAClaimIsNotBelieved() throws Exception {
    storeOn(cmd -> "+OK\r\n");
    assertThatThrownBy(() -> store.claim("job", F1, "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("claim of job")
        .hasMessageContaining("a type the script never returns")
        .hasMessageContaining("not acquired");
    assertThatThrownBy(() -> store.acquire("job", "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class);
    Lease lease = new Lease("job", "node-a", "token", 1, LONG, F1);
    assertThatThrownBy(() -> store.renew(lease, LONG)).isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> store.release(lease)).isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> store.inspect("job")).isInstanceOf(LeaseStoreException.class);
    assertThat(server.commands()).contains("EVALSHA");
  }

  @Test
  void aServerThatGrantsEveryClaimWithoutApplyingItIsCaughtAtTheNextClaim() throws Exception {
    storeOn(cmd -> grantedFenceOne());
    Lease first = store.claim("job", F1, "node-a", LONG).orElseThrow();
    assertThat(first.fence()).isEqualTo(1);
    // the server never kept the fence: the next grant carries the same fence again
    assertThatThrownBy(() -> store.claim("job", F2, "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("the fence did not move");
    assertThat(store.claimAll(List.of(new ClaimRequest("job", F2.plusSeconds(60), "n", LONG))))
        .extracting(ClaimResult::kind)
        .containsExactly(ClaimResult.Kind.FAILED);
  }

  @Test
  void aGrantOfAFiringItsOwnWatermarkCoversIsRefused() throws Exception {
    storeOn(
        cmd ->
            array(
                array(
                    integer(1),
                    integer(7),
                    integer(NOW),
                    bulk("" + F2.toEpochMilli()),
                    integer(6))));
    assertThatThrownBy(() -> store.claim("job", F1, "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("already covers");
  }

  @Test
  void aFiredRefusalWithAnOlderWatermarkIsRefused() throws Exception {
    storeOn(cmd -> array(array(integer(0), bulk("fired"), bulk("1000"), integer(0))));
    assertThatThrownBy(() -> store.tryClaim("job", F1, "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("as already run");
  }

  @Test
  void repliesOfTheWrongShapeAreStoreFailures() throws Exception {
    List<String> wrong =
        List.of(
            integer(1), // a bare integer where the batch array is expected
            array(integer(1)), // a batch entry that is not an array
            array(array(integer(1), integer(2))), // a grant with two of five elements
            array(array(integer(1), bulk("3"), integer(NOW), bulk(""), integer(0))), // text fence
            array(array(integer(2), bulk("held"))), // neither granted nor refused
            array(array(integer(0), bulk("busy"), bulk(""), bulk(""))), // unknown reason
            array(), // no entry for the name
            array(grantedFenceOne(), grantedFenceOne()), // two entries for one name
            ",1.5\r\n", // RESP3 double on a RESP2 connection
            "$-1\r\n"); // nil
    for (String reply : wrong) {
      storeOn(cmd -> reply);
      assertThatThrownBy(() -> store.tryClaim("job", F1, "node-a", LONG))
          .as("reply %s", reply.replace("\r\n", " "))
          .isInstanceOf(LeaseStoreException.class);
      stop();
    }
  }

  @Test
  void renewAndReleaseAnswersOtherThanZeroOrOneAreStoreFailures() throws Exception {
    Lease lease = new Lease("job", "node-a", "token", 1, LONG, F1);
    for (String reply : List.of(integer(2), bulk("1"), "+OK\r\n", array(integer(1), integer(1)))) {
      storeOn(cmd -> reply);
      assertThatThrownBy(() -> store.renew(lease, LONG))
          .as("reply %s", reply.replace("\r\n", " "))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("renew");
      assertThatThrownBy(() -> store.release(lease)).isInstanceOf(LeaseStoreException.class);
      stop();
    }
  }

  @Test
  void aServerWithoutScriptingIsNamedAsSuch() throws Exception {
    storeOn(cmd -> "-ERR unknown command '" + cmd.get(0) + "', with args beginning with: \r\n");
    assertThatThrownBy(() -> store.claim("job", F1, "node-a", LONG))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("does not run Lua scripts");
    assertThat(server.commands()).contains("EVALSHA", "EVAL");
  }

  @Test
  void anInspectAnswerOfTheWrongShapeIsAStoreFailure() throws Exception {
    storeOn(cmd -> array(integer(NOW), integer(100), bulk("x"), bulk(""), bulk(""), bulk("")));
    assertThatThrownBy(() -> store.inspect("job"))
        .isInstanceOf(LeaseStoreException.class)
        .hasMessageContaining("inspect of job");
  }
}
