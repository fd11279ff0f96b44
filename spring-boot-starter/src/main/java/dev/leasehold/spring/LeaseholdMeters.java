package dev.leasehold.spring;

import dev.leasehold.core.exclusive.LeasedCall;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;

/**
 * {@code leasehold.calls}: a timer per job and outcome ({@code ran}, {@code held}, {@code
 * already_run}, {@code store_failed}, {@code lost}) of every {@link OncePerFiring} call on this
 * replica. Its count says how often this replica ran a job or let another run it.
 */
public final class LeaseholdMeters implements LeasedCall.Listener {
  private final ObjectProvider<MeterRegistry> registry;

  LeaseholdMeters(ObjectProvider<MeterRegistry> registry) {
    this.registry = registry;
  }

  @Override
  public void finished(String name, LeasedCall.Outcome outcome, Duration took) {
    MeterRegistry r = registry.getIfAvailable();
    if (r == null) {
      return;
    }
    Timer.builder("leasehold.calls")
        .description("Calls of @OncePerFiring methods on this replica, by job and outcome")
        .tag("job", name)
        .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
        .register(r)
        .record(took);
  }
}
