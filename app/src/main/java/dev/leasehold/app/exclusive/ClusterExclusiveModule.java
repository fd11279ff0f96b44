package dev.leasehold.app.exclusive;

import com.google.inject.AbstractModule;
import com.google.inject.matcher.Matchers;
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

  public ClusterExclusiveModule(String node) {
    this.node = Objects.requireNonNull(node, "node");
  }

  @Override
  protected void configure() {
    ClusterExclusiveInterceptor interceptor = new ClusterExclusiveInterceptor(node);
    requestInjection(interceptor);
    bindInterceptor(Matchers.any(), Matchers.annotatedWith(ClusterExclusive.class), interceptor);
  }
}
