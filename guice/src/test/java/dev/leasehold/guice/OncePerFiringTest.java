package dev.leasehold.guice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import dev.leasehold.core.exclusive.CurrentFiring;
import dev.leasehold.core.exclusive.FiringContext;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas with their own clocks call a scheduled method (as each one's timer would) against one
 * real store (H2 in memory through the SQL adapter): each firing runs once, on whichever replica
 * claims it first, and a replica calling late for a firing already run is refused.
 */
class OncePerFiringTest {
  private static final Instant T0 = Instant.parse("2026-03-01T02:00:00Z");
  private static final List<String> RUNS = new ArrayList<>();

  /** A service called every 10 s by each replica's own timer. */
  public static class Digest {
    @ClusterExclusive(name = "digest-every", every = "10s", ttl = "30s")
    public long send() {
      FiringContext run = CurrentFiring.get().orElseThrow();
      synchronized (RUNS) {
        RUNS.add(run.holder() + " " + run.firing() + " " + run.fence());
      }
      return CurrentFiring.fence();
    }

    @ClusterExclusive(name = "digest-cron", cron = "0 2 * * *", zone = "Europe/Berlin")
    public boolean nightly() {
      return true;
    }

    @ClusterExclusive(name = "bad", cron = "0 2 * * *", every = "10s")
    public void both() {}
  }

  /** A clock the test moves. */
  static final class TestClock extends Clock {
    volatile Instant now;

    TestClock(Instant now) {
      this.now = now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final String url = "jdbc:h2:mem:once-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
  private final List<StoreBackend> backends = new ArrayList<>();

  @AfterEach
  void close() {
    backends.forEach(StoreBackend::close);
    RUNS.clear();
  }

  private Digest replica(String node, Clock clock) {
    StoreFactory factory =
        ServiceLoader.load(StoreFactory.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(f -> f.types().contains("h2"))
            .findFirst()
            .orElseThrow();
    StoreBackend backend = factory.open(StoreSettings.of("h2", url));
    backends.add(backend);
    LeaseStore store = backend.leaseStore();
    return Guice.createInjector(
            new ClusterExclusiveModule(node, clock),
            binder -> binder.bind(LeaseStore.class).toInstance(store))
        .getInstance(Digest.class);
  }

  @Test
  void eachFiringRunsOnceAcrossReplicasWhateverTheirClocksSay() {
    TestClock a = new TestClock(T0.plusMillis(3));
    TestClock late = new TestClock(T0.plusMillis(4_900)); // calls nearly 5 s after the firing
    TestClock early = new TestClock(T0.minusMillis(120)); // its timer woke a little early
    Digest ra = replica("node-a", a);
    Digest rb = replica("node-b", late);
    Digest rc = replica("node-c", early);

    assertThat(rc.send()).isEqualTo(1); // firing T0, fence 1
    assertThat(ra.send()).isZero(); // T0 already run: skipped
    assertThat(rb.send()).isZero(); // late for T0: refused by the watermark

    late.now = T0.plusSeconds(10).plusMillis(2_000);
    a.now = T0.plusSeconds(10).plusMillis(2);
    assertThat(rb.send()).isEqualTo(2); // firing T0+10s, fence 2
    assertThat(ra.send()).isZero();

    assertThat(RUNS).containsExactly("node-c " + T0 + " 1", "node-b " + T0.plusSeconds(10) + " 2");
  }

  @Test
  void aCronFiringIsTheLatestInstantOfTheExpressionInItsZone() {
    // 02:00 Europe/Berlin on 2026-03-02 is 01:00 UTC
    Instant firing = Instant.parse("2026-03-02T01:00:00Z");
    TestClock clock = new TestClock(firing.plusSeconds(30));
    Digest ra = replica("node-a", clock);
    Digest rb = replica("node-b", clock);

    assertThat(ra.nightly()).isTrue();
    assertThat(rb.nightly()).isFalse();
    assertThat(backends.get(0).leaseStore().inspect("digest-cron").orElseThrow().lastFire())
        .isEqualTo(firing);
  }

  @Test
  void cronAndEveryTogetherAreRefusedNamingTheMethod() {
    Digest ra = replica("node-a", new TestClock(T0));

    assertThatThrownBy(ra::both)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("both()")
        .hasMessageContaining("give cron or every, not both");
  }
}
