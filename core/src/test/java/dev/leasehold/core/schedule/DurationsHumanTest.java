package dev.leasehold.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Durations in log lines read like people write them, never ISO-8601. */
class DurationsHumanTest {
  @ParameterizedTest
  @CsvSource({
    "0, 0ms",
    "53, 53ms",
    "999, 999ms",
    "1000, 1s",
    "2500, 2.5s",
    "2460, 2.5s",
    "59940, 59.9s",
    "60000, 1m00s",
    "245000, 4m05s",
    "3600000, 1h00m",
    "3720000, 1h02m",
  })
  void humanUnits(long millis, String expected) {
    assertThat(Durations.human(Duration.ofMillis(millis))).isEqualTo(expected);
  }
}
