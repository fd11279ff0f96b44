package dev.leasehold.spring;

import dev.leasehold.core.exclusive.LeasedCall;
import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Leasehold for a Spring Boot application: the store from {@code leasehold.store.*} (opened when
 * the application starts, through the adapter found on the class path), its {@link LeaseStore},
 * {@link OncePerFiring} for scheduled methods, and with Actuator a health indicator and Micrometer
 * metrics.
 */
@AutoConfiguration
@EnableConfigurationProperties({LeaseholdProperties.class, LeaseholdStoreProperties.class})
public class LeaseholdAutoConfiguration {

  /** The opened store; closed with the application context. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public StoreBackend leaseholdStoreBackend(LeaseholdStoreProperties properties) {
    StoreSettings settings = LeaseholdStores.settings(properties);
    StoreFactory factory =
        LeaseholdStores.select(
            LeaseholdStores.discover(LeaseholdAutoConfiguration.class.getClassLoader()), settings);
    return factory.open(settings);
  }

  @Bean
  @ConditionalOnMissingBean
  public LeaseStore leaseholdLeaseStore(StoreBackend backend) {
    return backend.leaseStore();
  }

  /**
   * The post-processor of {@link OncePerFiring} methods. Static, and reaching the store only at the
   * first call, so that it does not make the store (and its configuration) early.
   */
  @Bean
  public static OncePerFiringPostProcessor leaseholdOncePerFiringPostProcessor(
      ObjectProvider<LeaseStore> store,
      ObjectProvider<LeaseholdProperties> properties,
      ObjectProvider<LeasedCall.Listener> listener,
      ObjectProvider<Clock> clock) {
    Memo<Clock> clocks = new Memo<>(() -> clock.getIfAvailable(Clock::systemUTC));
    return new OncePerFiringPostProcessor(
        new Memo<>(
            () ->
                new LeasedCall(
                    store.getObject(),
                    node(properties.getObject()),
                    listener.getIfAvailable(() -> (n, o, t) -> {}),
                    clocks.get())),
        clocks);
  }

  static String node(LeaseholdProperties properties) {
    String node = properties.getNode();
    if (node != null && !node.isBlank()) {
      return node.strip();
    }
    return LeaseDefaults.node(System.getenv());
  }

  /** Metrics of {@link OncePerFiring} calls, when the application has a {@link MeterRegistry}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean(LeasedCall.Listener.class)
    LeaseholdMeters leaseholdMeters(ObjectProvider<MeterRegistry> registry) {
      return new LeaseholdMeters(registry);
    }
  }

  /** The store's health, when the application has Actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
    HealthIndicator leaseholdHealthIndicator(
        StoreBackend backend, LeaseholdStoreProperties properties) {
      return new LeaseholdHealthIndicator(backend, properties.getType());
    }
  }
}
