package dev.leasehold.app.admin;

import dev.leasehold.core.lease.Replicas;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The replicas as this daemon last read them (after each publication of its node record):
 *
 * <ul>
 *   <li>{@code leasehold_config_drift}: 1 when live replicas run different job sets, else 0;
 *   <li>{@code leasehold_config_drift_replica{node}}: 1 for each live replica whose job set differs
 *       from the most common one (the series of a replica goes when it no longer differs);
 *   <li>{@code leasehold_nodes{state}}: how many replicas are {@code live} and {@code stale}.
 * </ul>
 *
 * Every series exists from the first scrape, at zero.
 */
public final class NodeMetrics {
  private final AtomicInteger drift = new AtomicInteger();
  private final AtomicInteger live = new AtomicInteger();
  private final AtomicInteger stale = new AtomicInteger();
  private final MultiGauge drifted;

  public NodeMetrics(MeterRegistry registry) {
    Gauge.builder("leasehold.config.drift", drift, AtomicInteger::get)
        .description("1 when live replicas run different job sets (see leasehold nodes)")
        .register(registry);
    Gauge.builder("leasehold.nodes", live, AtomicInteger::get)
        .description("Replicas with a node record in the store, by state")
        .tag("state", "live")
        .register(registry);
    Gauge.builder("leasehold.nodes", stale, AtomicInteger::get)
        .description("Replicas with a node record in the store, by state")
        .tag("state", "stale")
        .register(registry);
    drifted =
        MultiGauge.builder("leasehold.config.drift.replica")
            .description("1 for each live replica whose job set differs from the most common one")
            .register(registry);
  }

  /** Takes the replicas as last read. */
  public void update(Replicas replicas) {
    drift.set(replicas.drift() ? 1 : 0);
    live.set(replicas.live().size());
    stale.set(replicas.stale().size());
    drifted.register(
        replicas.drifted().stream()
            .map(node -> MultiGauge.Row.of(Tags.of("node", node), 1))
            .toList(),
        true);
  }
}
