package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
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
    LeaseState hold =
        server.client().inspect(StoreSelfCheck.SCRATCH_PREFIX + "gateway-1.hold").orElseThrow();
    assertThat(hold.held()).as("released afterwards").isFalse();
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

  /** A client of the reference store with one rule removed. */
  private LeaseStore broken(Flaw flaw) {
    LeaseStore real = server.client();
    return new LeaseStore() {
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
