package dev.leasehold.guice;

import com.google.inject.AbstractModule;
import com.google.inject.matcher.Matchers;
import java.time.Clock;
import java.util.Objects;

/**
 * Installs the interceptor for {@link ClusterExclusive} methods. The injector must bind a {@link
 * dev.leasehold.core.lease.LeaseStore} (for example {@code backend.leaseStore()} of an opened
 * store); {@code node} names this replica as the lease holder.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *     new ClusterExclusiveModule("gateway-1"),
 *     binder -> binder.bind(LeaseStore.class).toInstance(backend.leaseStore()));
 * }</pre>
 */
public final class ClusterExclusiveModule extends AbstractModule {
  private final String node;
  private final Clock clock;

  public ClusterExclusiveModule(String node) {
    this(node, Clock.systemUTC());
  }

  /** With the clock that tells which firing a scheduled call is for (tests pass a fixed one). */
  public ClusterExclusiveModule(String node, Clock clock) {
    this.node = Objects.requireNonNull(node, "node");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  protected void configure() {
    ClusterExclusiveInterceptor interceptor = new ClusterExclusiveInterceptor(node, clock);
    requestInjection(interceptor);
    bindInterceptor(Matchers.any(), Matchers.annotatedWith(ClusterExclusive.class), interceptor);
  }
}
