package dev.leasehold.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.mongo.MisbehavingWireServer.Flaw;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Mongo store on servers that speak the protocol but get MongoDB's semantics wrong (a scripted
 * {@link MisbehavingWireServer}): Leasehold refuses them at start (the self-check fails with one
 * line naming the behaviour) and fails closed at run time (a claim throws instead of granting a
 * lease), and {@code status} and {@code history} degrade with a warning where that is safe.
 */
class MongoCompatibilityTest {
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Duration LONG = Duration.ofMinutes(5);

  private final MisbehavingWireServer server = new MisbehavingWireServer();
  private final List<StoreBackend> opened = new ArrayList<>();
  private StoreSettings settings;

  @BeforeEach
  void freshDatabase() {
    String database = "compat_" + UUID.randomUUID().toString().substring(0, 8);
    // generous: these tests judge answers, never durations, and share the machine with others
    settings = WireServer.settings(server.url(database), Duration.ofSeconds(10), Map.of());
  }

  @AfterEach
  void close() {
    opened.forEach(StoreBackend::close);
    server.close();
  }

  private StoreBackend open() {
    StoreBackend backend = new MongoStoreFactory().open(settings);
    opened.add(backend);
    return backend;
  }

  private void selfCheck() {
    new StoreSelfCheck(settings, "node-1").run(open(), open());
  }

  @Test
  void theSoundWireServerPassesTheSelfCheckTwice() {
    assertThatCode(this::selfCheck).doesNotThrowAnyException();
    assertThatCode(this::selfCheck).doesNotThrowAnyException();
  }

  @Test
  void aServerThatFilesInsertsUnderAGeneratedIdIsRefusedAndNothingIsGranted() {
    server.set(Flaw.INSERTS_UNDER_A_GENERATED_ID);
    assertThatThrownBy(this::selfCheck)
        .isInstanceOf(IncompatibleStoreException.class)
        .hasMessageContaining("the server holds 0 documents with _id");

    LeaseStore a = open().leaseStore();
    LeaseStore b = open().leaseStore();
    String name = fresh();
    assertThatThrownBy(() -> a.claim(name, F1, "node-a", LONG))
        .isInstanceOf(IncompatibleStoreException.class);
    assertThatThrownBy(() -> b.claim(name, F1, "node-b", LONG))
        .isInstanceOf(IncompatibleStoreException.class);
  }

  @Test
  void aServerWithoutExprInFiltersIsReportedAsUnsupportedNotUnreachable() {
    server.set(Flaw.NO_EXPR_IN_FILTERS);
    assertThatThrownBy(this::selfCheck)
        .isInstanceOf(IncompatibleStoreException.class)
        .hasMessageContaining("the server does not support what the store needs (error 238")
        .hasMessageContaining("$lte is not implemented inside $expr")
        .hasMessageNotContaining("unreachable");
  }

  @Test
  void aClaimThatTakesAnotherDocumentFailsClosed() {
    LeaseStore store = open().leaseStore();
    String other = fresh();
    store.release(store.claim(other, F1, "node-a", LONG).orElseThrow());
    String name = fresh();
    store.claim(name, F1, "node-a", LONG).orElseThrow();

    server.set(Flaw.IGNORES_ID_IN_FIND_AND_MODIFY);
    assertThatThrownBy(() -> store.claim(name, F1.plusSeconds(60), "node-b", LONG))
        .isInstanceOf(IncompatibleStoreException.class)
        .hasMessageContaining(
            "updated the document with _id " + other + " instead of the one named");
  }

  @Test
  void aServerThatGrantsALiveLeaseIsRefusedAtStart() {
    server.set(Flaw.IGNORES_EXPIRY_IN_FIND_AND_MODIFY);
    assertThatThrownBy(this::selfCheck)
        .isInstanceOf(IncompatibleStoreException.class)
        .hasMessage(
            "store mongo at "
                + settings.url()
                + ": the server let a second client take a live lease; Leasehold cannot run safely"
                + " on it");
  }

  @Test
  void aServerThatReleasesForAnyTokenIsRefusedAtStart() {
    server.set(Flaw.IGNORES_TOKEN_IN_UPDATES);
    assertThatThrownBy(this::selfCheck)
        .isInstanceOf(IncompatibleStoreException.class)
        .hasMessageContaining("released a lease for a wrong token");
  }

  @Test
  void aServerThatBreaksWhileRunningFailsClosedAndRecoversWhenFixed() {
    LeaseStore store = open().leaseStore();
    String name = fresh();
    Lease first = store.claim(name, F1, "node-a", LONG).orElseThrow();
    store.release(first);

    server.set(Flaw.NO_EXPR_IN_FILTERS);
    assertThatThrownBy(() -> store.claim(name, F1.plusSeconds(60), "node-a", LONG))
        .isInstanceOf(IncompatibleStoreException.class);
    assertThat(store.inspect(name).orElseThrow().held()).isFalse();

    server.set();
    assertThat(store.claim(name, F1.plusSeconds(60), "node-a", LONG)).isPresent();
  }

  @Test
  void statusWorksWithoutTheAggregationOperators() {
    LeaseStore store = open().leaseStore();
    String held = fresh();
    String free = fresh();
    Lease lease = store.claim(held, F1, "node-a", LONG).orElseThrow();
    store.release(store.acquire(free, "node-b", LONG).orElseThrow());

    server.set(Flaw.NO_AGGREGATION_OPERATORS);
    LeaseState state = store.inspect(held).orElseThrow();
    assertThat(state.held()).isTrue();
    assertThat(state.currentHolder()).contains("node-a");
    assertThat(state.lastFire()).isEqualTo(F1);
    assertThat(state.fence()).isEqualTo(lease.fence());
    assertThat(state.leaseUntil()).isAfter(Instant.now().plus(LONG).minusSeconds(60));
    assertThat(store.list())
        .extracting(LeaseState::name, LeaseState::held)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(held, true),
            org.assertj.core.groups.Tuple.tuple(free, false));
  }

  @Test
  void historyWorksWithoutTtlIndexes() {
    server.set(Flaw.NO_TTL_INDEXES);
    ExecutionRecord r =
        new ExecutionRecord(
            "digest",
            F1,
            "node-a",
            3,
            TriggerKind.SCHEDULED,
            F1,
            F1.plusSeconds(1),
            Outcome.SUCCEEDED,
            0,
            null);
    open().executionLog().record(r);
    assertThat(open().executionLog().recent("digest", 5)).containsExactly(r);
  }

  private static String fresh() {
    return "compat-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
