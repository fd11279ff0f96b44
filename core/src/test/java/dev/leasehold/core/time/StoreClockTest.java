package dev.leasehold.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.testing.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The offset estimate in virtual time: a local clock 3 s behind a store whose clock is true. */
class StoreClockTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");

  private final VirtualTime time = new VirtualTime(T0);
  private final VirtualTime.SkewedClock local = time.clock(Duration.ofSeconds(-3));
  private final StoreClock clock = new StoreClock(local, time);

  @AfterEach
  void tearDown() {
    time.shutdown();
  }

  private static Instant at(long millis) {
    return T0.plusMillis(millis);
  }

  /** A sample sent at local {@code sent}, answered {@code roundTrip} later, store read at store. */
  private boolean sample(long sent, long roundTrip, long store) {
    return clock.observe(at(sent), at(sent + roundTrip), at(store));
  }

  @Test
  void beforeAnySampleItReadsTheLocalClock() {
    assertThat(clock.offset()).isEmpty();
    assertThat(clock.instant()).isEqualTo(local.instant());
  }

  @Test
  void theOffsetIsTheStoresTimeLessTheMidpointOfSendAndReceipt() {
    // sent at local 08:00:00.000, answered 200 ms later; the store read 08:00:03.100
    assertThat(sample(0, 200, 3100)).isTrue();
    assertThat(clock.offset()).contains(Duration.ofSeconds(3));
    assertThat(clock.instant()).isEqualTo(time.now());
    time.advance(Duration.ofSeconds(10));
    assertThat(clock.instant()).as("follows the local clock between samples").isEqualTo(time.now());
  }

  @Test
  void theSampleWithTheShortestRoundTripIsKept() {
    sample(0, 100, 3050);
    assertThat(sample(0, 400, 3500)).as("a slower answer says less").isFalse();
    assertThat(clock.offset()).contains(Duration.ofSeconds(3));
    assertThat(sample(0, 20, 3040)).as("a faster one says more").isTrue();
    assertThat(clock.offset()).contains(Duration.ofMillis(3030));
  }

  @Test
  void aNewerSampleWinsOnceTheKeptOneHasAged() {
    sample(0, 20, 3010);
    time.advance(Duration.ofSeconds(5));
    assertThat(sample(5000, 100, 8050)).as("5 s old: 10 + 5 ms against 50 ms").isFalse();
    time.advance(Duration.ofSeconds(55));
    // the store's clock was stepped 2 s ahead meanwhile: 60 s old, 10 + 60 ms against 50 ms
    assertThat(sample(60_000, 100, 65_050)).isTrue();
    assertThat(clock.offset()).contains(Duration.ofSeconds(5));
  }

  @Test
  void aSampleWithANegativeOrTooLongRoundTripIsIgnored() {
    assertThat(clock.observe(at(1000), at(900), at(4000))).as("local clock set back").isFalse();
    assertThat(sample(0, StoreClock.MAX_ROUND_TRIP.toMillis() + 1, 3000)).isFalse();
    assertThat(clock.offset()).isEmpty();
    assertThat(sample(0, StoreClock.MAX_ROUND_TRIP.toMillis(), 3500)).isTrue();
  }
}
