package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The self-check passes on the reference store and names the missing behaviour of a store that
 * breaks one rule. Each broken store here is the reference store with one rule removed, the way a
 * "compatible" server gets one thing wrong; the wire-level versions live in the adapters' tests.
 */
class StoreSelfCheckTest {
  private static final StoreSettings SETTINGS =
      new StoreSettings(
          "mongo",
          "mongodb://leasehold:s3cret@db.example:27017/app",
          List.of(),
          null,
          "s3cret",
          null,
          null,
          Map.of());

  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(Clock.systemUTC());

  private enum Flaw {
    NONE,
    CLAIMS_HELD_LEASES,
    NO_WATERMARK,
    RELEASES_ANY_TOKEN,
    NEVER_EXPIRES,
    FENCE_STANDS_STILL,
    FORGETS_THE_NAME
  }

  private void check(Flaw flaw) {
    new StoreSelfCheck(SETTINGS, "gateway-1").run(broken(flaw), broken(flaw));
  }

  @Test
  void theReferenceStorePasses() {
    assertThatCode(() -> check(Flaw.NONE)).doesNotThrowAnyException();
    assertThatCode(() -> check(Flaw.NONE))
        .as("again, on the same names")
        .doesNotThrowAnyException();
    assertThat(server.client().list())
        .filteredOn(s -> StoreSelfCheck.isScratch(s.name()))
        .hasSize(2)
        .allSatisfy(s -> assertThat(s.held()).as("%s released afterwards", s.name()).isFalse());
  }

  @Test
  void twentyChecksByNewNodeIdsLeaveNoMoreScratchNamesThanTheSlots() {
    for (int i = 0; i < 20; i++) {
      new StoreSelfCheck(SETTINGS, "validate-host-" + (4000 + i))
          .run(broken(Flaw.NONE), broken(Flaw.NONE));
    }
    assertThat(server.client().list())
        .filteredOn(s -> StoreSelfCheck.isScratch(s.name()))
        .hasSizeLessThanOrEqualTo(2 * StoreSelfCheck.SLOTS);
  }

  private List<LeaseState> scratch() {
    return server.client().list().stream().filter(s -> StoreSelfCheck.isScratch(s.name())).toList();
  }

  @Test
  void onAStoreThatForgetsTwentyChecksLeaveNoScratchNames() {
    for (int i = 0; i < 20; i++) {
      new StoreSelfCheck(SETTINGS, "validate-host-" + (4000 + i))
          .run(broken(Flaw.NONE, true), broken(Flaw.NONE, true));
      assertThat(scratch()).as("after check %d", i + 1).isEmpty();
    }
  }

  @Test
  void onAStoreThatForgetsChecksAtOnceAllPassAndLeaveNoScratchNames() throws Exception {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(12);
    try {
      List<java.util.concurrent.Future<?>> checks = new java.util.ArrayList<>();
      for (int i = 0; i < 12; i++) {
        String node = "gateway-" + (i % 3);
        checks.add(
            pool.submit(
                () ->
                    new StoreSelfCheck(SETTINGS, node)
                        .run(broken(Flaw.NONE, true), broken(Flaw.NONE, true))));
      }
      for (java.util.concurrent.Future<?> f : checks) {
        assertThatCode(() -> f.get(30, java.util.concurrent.TimeUnit.SECONDS))
            .doesNotThrowAnyException();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(scratch()).isEmpty();
  }

  @Test
  void aStoreThatForgetsIsStillRefusedWhenItBreaksARule() {
    assertThatThrownBy(
            () ->
                new StoreSelfCheck(SETTINGS, "gateway-1")
                    .run(broken(Flaw.NO_WATERMARK, true), broken(Flaw.NO_WATERMARK, true)))
        .hasMessageContaining("the watermark did not hold");
    assertThatThrownBy(
            () ->
                new StoreSelfCheck(SETTINGS, "gateway-1")
                    .run(
                        broken(Flaw.FENCE_STANDS_STILL, true),
                        broken(Flaw.FENCE_STANDS_STILL, true)))
        .hasMessageContaining("fence");
    assertThat(scratch()).as("forgotten after a failed check too").isEmpty();
  }

  @Test
  void moreChecksAtOnceThanSlotsAllPass() throws Exception {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(12);
    try {
      List<java.util.concurrent.Future<?>> checks = new java.util.ArrayList<>();
      for (int i = 0; i < 12; i++) {
        // the same node id twelve times, more checks than slots: every one starts at one slot
        checks.add(pool.submit(() -> check(Flaw.NONE)));
      }
      for (java.util.concurrent.Future<?> f : checks) {
        assertThatCode(() -> f.get(30, java.util.concurrent.TimeUnit.SECONDS))
            .doesNotThrowAnyException();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aStoreThatGrantsAHeldLeaseIsRefused() {
    assertThatThrownBy(() -> check(Flaw.CLAIMS_HELD_LEASES))
        .isInstanceOf(IncompatibleStoreException.class)
        .hasMessage(
            "store mongo at mongodb://leasehold:***@db.example:27017/app: the server accepted a"
                + " second claim of a held lease; Leasehold cannot run safely on it");
  }

  @Test
  void aStoreWithoutAWatermarkIsRefused() {
    assertThatThrownBy(() -> check(Flaw.NO_WATERMARK))
        .hasMessageContaining("the watermark did not hold")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void aStoreThatReleasesForAnyTokenIsRefused() {
    assertThatThrownBy(() -> check(Flaw.RELEASES_ANY_TOKEN))
        .hasMessageContaining("released a lease for a wrong token");
  }

  @Test
  void aStoreWhoseLeasesNeverExpireIsRefused() {
    assertThatThrownBy(() -> check(Flaw.NEVER_EXPIRES))
        .hasMessageContaining("expiry does not follow the TTL");
  }

  @Test
  void aStoreWhoseFenceStandsStillIsRefused() {
    assertThatThrownBy(() -> check(Flaw.FENCE_STANDS_STILL)).hasMessageContaining("fence");
  }

  @Test
  void aStoreThatWritesUnderAnotherNameIsRefused() {
    assertThatThrownBy(() -> check(Flaw.FORGETS_THE_NAME))
        .hasMessageContaining("cannot be found under its name");
  }

  @Test
  void aStoreErrorIsPassedOnAsItIs() {
    server.setReachable(false);
    assertThatThrownBy(() -> check(Flaw.NONE))
        .isInstanceOf(LeaseStoreException.class)
        .isNotInstanceOf(IncompatibleStoreException.class);
  }

  @Test
  void theScratchNamesAreRecognisable() {
    assertThat(StoreSelfCheck.isScratch(StoreSelfCheck.SCRATCH_PREFIX + "n.hold")).isTrue();
    assertThat(StoreSelfCheck.isScratch("nightly-backup")).isFalse();
  }

  /** A client of the reference store with one rule removed, keeping no pauses. */
  private StoreBackend broken(Flaw flaw) {
    return broken(flaw, false);
  }

  /** As {@link #broken(Flaw)}; with {@code forgets}, the client can forget records. */
  private StoreBackend broken(Flaw flaw, boolean forgets) {
    InMemoryLeaseStore real = server.client();
    LeaseStore leases = brokenLeases(real, flaw);
    return new StoreBackend() {
      @Override
      public LeaseStore leaseStore() {
        return leases;
      }

      @Override
      public ExecutionLog executionLog() {
        throw new UnsupportedOperationException("the self-check reads no history");
      }

      @Override
      public Optional<Forgetting> forgetting() {
        return forgets ? Optional.of(real) : Optional.empty();
      }

      @Override
      public void ping() {}

      @Override
      public void close() {}
    };
  }

  private static LeaseStore brokenLeases(LeaseStore real, Flaw flaw) {
    return new LeaseStore() {
      @Override
      public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
        Optional<Lease> won = claim(name, firing, holder, ttl);
        return won.isPresent()
            ? ClaimResult.won(won.get())
            : ClaimResult.refusal(inspect(name), LeaseArguments.firing(firing));
      }

      @Override
      public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
        return switch (flaw) {
          case CLAIMS_HELD_LEASES ->
              real.claim(name, firing, holder, ttl)
                  .or(() -> Optional.of(new Lease(name, holder, "forged", 99, ttl, null)));
          case NO_WATERMARK ->
              real.claim(name, firing, holder, ttl).or(() -> real.acquire(name, holder, ttl));
          case NEVER_EXPIRES -> real.claim(name, firing, holder, ttl.plusHours(1));
          case FENCE_STANDS_STILL ->
              real.claim(name, firing, holder, ttl)
                  .map(l -> new Lease(name, holder, l.token(), 1, ttl, l.expiresAt()));
          case FORGETS_THE_NAME ->
              real.claim(name + "x", firing, holder, ttl)
                  .map(l -> new Lease(name, holder, l.token(), l.fence(), ttl, l.expiresAt()));
          default -> real.claim(name, firing, holder, ttl);
        };
      }

      @Override
      public Optional<Lease> acquire(String name, String holder, Duration ttl) {
        return real.acquire(name, holder, flaw == Flaw.NEVER_EXPIRES ? ttl.plusHours(1) : ttl);
      }

      @Override
      public boolean renew(Lease lease, Duration ttl) {
        return real.renew(lease, ttl);
      }

      @Override
      public boolean release(Lease lease) {
        if (flaw == Flaw.RELEASES_ANY_TOKEN) {
          return true;
        }
        return real.release(lease);
      }

      @Override
      public Optional<LeaseState> inspect(String name) {
        return real.inspect(name);
      }

      @Override
      public List<LeaseState> list() {
        return real.list();
      }
    };
  }
}
