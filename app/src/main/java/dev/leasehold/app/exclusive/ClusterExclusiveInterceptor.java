package dev.leasehold.app.exclusive;

import com.google.inject.Inject;
import com.google.inject.Provider;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.schedule.Durations;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link ClusterExclusive} method only under its lease.
 *
 * <p>Why it is safe: the lease is taken by {@code LeaseStore.acquire}, one atomic step on the
 * store, so two replicas cannot both get it. While the method runs the lease is renewed every
 * ttl/3; if a renewal fails (lease expired and maybe taken, or store unreachable) the method's
 * thread is interrupted at once, since another replica may now run it (G5). The lease is released
 * by token, so a late release cannot free someone else's lease (G7).
 */
final class ClusterExclusiveInterceptor implements MethodInterceptor {
  private static final Logger log = LoggerFactory.getLogger(ClusterExclusiveInterceptor.class);
  private static final ScheduledExecutorService RENEWALS =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "leasehold-exclusive-renew");
            t.setDaemon(true);
            return t;
          });

  private final String node;
  @Inject private Provider<LeaseStore> store;

  ClusterExclusiveInterceptor(String node) {
    this.node = node;
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Method method = invocation.getMethod();
    ClusterExclusive spec = method.getAnnotation(ClusterExclusive.class);
    String name = LeaseNames.require(spec.name());
    Duration ttl = Durations.parse(spec.ttl());
    if (ttl.toMillis() < 3) {
      throw new IllegalArgumentException("@ClusterExclusive ttl must be at least 3ms: " + method);
    }
    LeaseStore leases = store.get();
    Optional<Lease> lease;
    try {
      lease = leases.acquire(name, node, ttl);
    } catch (LeaseStoreException e) {
      log.warn("skipped {}: store unreachable ({})", name, e.getMessage());
      return skipped(method);
    }
    if (lease.isEmpty()) {
      log.debug("skipped {}: the lease is held elsewhere", name);
      return skipped(method);
    }
    Thread caller = Thread.currentThread();
    AtomicBoolean running = new AtomicBoolean(true);
    long period = ttl.toMillis() / 3;
    ScheduledFuture<?> renewal =
        RENEWALS.scheduleAtFixedRate(
            () -> renew(leases, lease.get(), ttl, caller, running),
            period,
            period,
            TimeUnit.MILLISECONDS);
    try {
      return invocation.proceed();
    } finally {
      synchronized (running) {
        running.set(false); // no interrupt may reach the caller after this point
      }
      renewal.cancel(false);
      try {
        leases.release(lease.get());
      } catch (LeaseStoreException e) {
        log.warn(
            "could not release {} ({}); it expires after {}",
            name,
            e.getMessage(),
            Durations.human(ttl));
      }
    }
  }

  private static void renew(
      LeaseStore leases, Lease lease, Duration ttl, Thread caller, AtomicBoolean running) {
    boolean renewed;
    try {
      renewed = leases.renew(lease, ttl);
    } catch (LeaseStoreException e) {
      renewed = false;
    }
    if (!renewed) {
      synchronized (running) {
        if (running.get()) {
          log.warn("lease {} lost while its method runs; interrupting it", lease.name());
          caller.interrupt();
        }
      }
      throw new IllegalStateException("lease lost"); // ends this periodic renewal
    }
  }

  static Object skipped(Method method) {
    Class<?> type = method.getReturnType();
    if (type == Optional.class) {
      return Optional.empty();
    }
    if (type == boolean.class) {
      return false;
    }
    if (type == void.class || !type.isPrimitive()) {
      return null;
    }
    if (type == char.class) {
      return '\0';
    }
    if (type == long.class) {
      return 0L;
    }
    if (type == double.class) {
      return 0d;
    }
    if (type == float.class) {
      return 0f;
    }
    if (type == int.class) {
      return 0;
    }
    return type == short.class ? (short) 0 : (byte) 0;
  }
}
