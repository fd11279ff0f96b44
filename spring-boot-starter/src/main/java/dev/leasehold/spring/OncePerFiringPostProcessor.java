package dev.leasehold.spring;

import dev.leasehold.core.exclusive.Firings;
import dev.leasehold.core.exclusive.LeasedCall;
import dev.leasehold.core.lease.LeaseNames;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Proxies beans with {@link OncePerFiring} methods so that each call goes through {@link
 * LeasedCall#once}, and refuses at start-up any such method whose {@code @Scheduled} is not a cron.
 * Runs before Spring's {@code ScheduledAnnotationBeanPostProcessor}, so the scheduler calls the
 * proxy.
 */
final class OncePerFiringPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
    implements EmbeddedValueResolverAware, DisposableBean {
  private static final long serialVersionUID = 1L;

  private final transient Memo<LeasedCall> calls;
  private final transient Supplier<Clock> clock;
  private final transient Map<Method, Spec> specs = new ConcurrentHashMap<>();
  private transient StringValueResolver resolver;

  OncePerFiringPostProcessor(Memo<LeasedCall> calls, Supplier<Clock> clock) {
    this.calls = calls;
    this.clock = clock;
    this.advisor =
        new DefaultPointcutAdvisor(
            new AnnotationMatchingPointcut(null, OncePerFiring.class, true), new Interceptor());
    setBeforeExistingAdvisors(true);
    setProxyTargetClass(true);
    // before ScheduledAnnotationBeanPostProcessor (lowest precedence), so it schedules the proxy
    setOrder(LOWEST_PRECEDENCE - 100);
  }

  /** Ends the lease timer and renewal threads with the context, if a call made them. */
  @Override
  public void destroy() {
    calls.ifMade().ifPresent(LeasedCall::close);
  }

  @Override
  public void setEmbeddedValueResolver(StringValueResolver resolver) {
    this.resolver = resolver;
  }

  /** One annotated method's settings, checked. */
  record Spec(String name, Duration ttl, CronExpression cron, ZoneId zone) {
    Optional<Instant> nextAfter(Instant instant) {
      ZonedDateTime next = cron.next(instant.atZone(zone));
      return Optional.ofNullable(next).map(ZonedDateTime::toInstant);
    }
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> target = AopUtils.getTargetClass(bean);
    Set<Method> annotated =
        MethodIntrospector.selectMethods(
                target,
                (MethodIntrospector.MetadataLookup<OncePerFiring>)
                    m -> AnnotatedElementUtils.findMergedAnnotation(m, OncePerFiring.class))
            .keySet();
    for (Method method : annotated) {
      try {
        specs.put(method, spec(method));
      } catch (IllegalArgumentException e) {
        throw new BeanCreationException(beanName, e.getMessage());
      }
    }
    return super.postProcessAfterInitialization(bean, beanName);
  }

  private Spec spec(Method method) {
    String where =
        "@OncePerFiring on " + method.getDeclaringClass().getName() + "." + method.getName() + "()";
    OncePerFiring once = AnnotatedElementUtils.findMergedAnnotation(method, OncePerFiring.class);
    Set<Scheduled> scheduled =
        AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class);
    if (scheduled.size() != 1) {
      throw new IllegalArgumentException(
          where
              + ": needs exactly one @Scheduled(cron = ..., zone = ...), found "
              + scheduled.size());
    }
    Scheduled s = scheduled.iterator().next();
    if (s.fixedRate() >= 0
        || s.fixedDelay() >= 0
        || !s.fixedRateString().isEmpty()
        || !s.fixedDelayString().isEmpty()) {
      throw new IllegalArgumentException(
          where
              + ": @Scheduled fixedRate/fixedDelay is refused; its calls are not aligned across"
              + " replicas, so no firing can be told apart: use @Scheduled(cron = ..., zone = ...)");
    }
    String cronText = resolve(s.cron());
    if (cronText.isBlank()) {
      throw new IllegalArgumentException(where + ": needs @Scheduled(cron = ...)");
    }
    String name = resolve(once.name());
    if (name.isBlank()) {
      name =
          ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName()
              + "."
              + method.getName();
    }
    String problem = LeaseNames.problem(name);
    if (problem != null) {
      throw new IllegalArgumentException(where + ": name: " + problem);
    }
    Duration ttl;
    try {
      ttl = LeasedCall.ttl(resolve(once.ttl()), where);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": ttl: " + e.getMessage(), e);
    }
    if (Scheduled.CRON_DISABLED.equals(cronText)) {
      return new Spec(name, ttl, null, null);
    }
    CronExpression cron;
    try {
      cron = CronExpression.parse(cronText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": cron '" + cronText + "': " + e.getMessage(), e);
    }
    String zoneText = resolve(s.zone());
    ZoneId zone;
    try {
      zone = zoneText.isBlank() ? TimeZone.getDefault().toZoneId() : ZoneId.of(zoneText);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(where + ": unknown zone '" + zoneText + "'", e);
    }
    return new Spec(name, ttl, cron, zone);
  }

  private String resolve(String value) {
    if (resolver == null || value == null) {
      return value == null ? "" : value;
    }
    String resolved = resolver.resolveStringValue(value);
    return resolved == null ? "" : resolved;
  }

  private final class Interceptor implements MethodInterceptor {
    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
      Method method = invocation.getMethod();
      Object target = invocation.getThis();
      Method specific =
          target == null
              ? method
              : ClassUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target));
      Spec spec = specs.computeIfAbsent(specific, OncePerFiringPostProcessor.this::spec);
      if (spec.cron() == null) {
        return null; // a disabled cron ("-") is never called by the scheduler
      }
      Optional<Instant> firing = Firings.due(spec::nextAfter, clock.get().instant());
      if (firing.isEmpty()) {
        return null;
      }
      LeasedCall.Result<Object> result =
          calls.get().once(spec.name(), firing.get(), spec.ttl(), invocation::proceed);
      return result.ran() ? result.value() : null;
    }
  }
}
