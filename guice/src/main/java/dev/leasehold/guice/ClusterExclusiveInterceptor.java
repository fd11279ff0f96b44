package dev.leasehold.guice;

import com.google.inject.Inject;
import com.google.inject.Provider;
import dev.leasehold.core.exclusive.Firings;
import dev.leasehold.core.exclusive.LeasedCall;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.schedule.Schedule;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

/**
 * Runs a {@link ClusterExclusive} method through {@link LeasedCall}: once per firing when the
 * annotation names a schedule, else mutually exclusive. The annotation is read once per method.
 */
final class ClusterExclusiveInterceptor implements MethodInterceptor {
  private final String node;
  private final Clock clock;
  private final ConcurrentMap<Method, Spec> specs = new ConcurrentHashMap<>();
  @Inject private Provider<LeaseStore> store;
  private volatile LeasedCall calls;

  ClusterExclusiveInterceptor(String node, Clock clock) {
    this.node = node;
    this.clock = clock;
  }

  /** One annotated method's settings, checked. */
  record Spec(String name, Duration ttl, Schedule schedule) {
    static Spec of(Method method) {
      ClusterExclusive a = method.getAnnotation(ClusterExclusive.class);
      String where = "@ClusterExclusive on " + method;
      String problem = LeaseNames.problem(a.name());
      if (problem != null) {
        throw new IllegalArgumentException(where + ": name: " + problem);
      }
      Duration ttl = LeasedCall.ttl(a.ttl(), where);
      if (!a.cron().isBlank() && !a.every().isBlank()) {
        throw new IllegalArgumentException(where + ": give cron or every, not both");
      }
      Schedule schedule = null;
      try {
        if (!a.cron().isBlank()) {
          schedule = Schedule.cron(a.cron(), ZoneId.of(a.zone()));
        } else if (!a.every().isBlank()) {
          schedule = Schedule.every(Durations.parse(a.every()), Duration.ZERO);
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
      return new Spec(a.name(), ttl, schedule);
    }
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Method method = invocation.getMethod();
    Spec spec = specs.computeIfAbsent(method, Spec::of);
    LeasedCall.Result<Object> result;
    if (spec.schedule() == null) {
      result = calls().exclusive(spec.name(), spec.ttl(), invocation::proceed);
    } else {
      Optional<Instant> firing = Firings.due(spec.schedule()::nextAfter, clock.instant());
      if (firing.isEmpty()) {
        return skipped(method);
      }
      result = calls().once(spec.name(), firing.get(), spec.ttl(), invocation::proceed);
    }
    return result.ran() ? result.value() : skipped(method);
  }

  /** Made at the first call (the store may open late); one per injector, with its own threads. */
  private LeasedCall calls() {
    LeasedCall c = calls;
    if (c == null) {
      synchronized (this) {
        c = calls;
        if (c == null) {
          c = new LeasedCall(store.get(), node, null, clock);
          calls = c;
        }
      }
    }
    return c;
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
