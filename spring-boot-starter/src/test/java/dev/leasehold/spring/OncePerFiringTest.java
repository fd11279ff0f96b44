package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.exclusive.CurrentFiring;
import dev.leasehold.core.exclusive.FiringContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@link OncePerFiring} on {@code @Scheduled(cron)} methods: replicas (separate application
 * contexts, each with its own store client and its own Spring scheduler) share one real store and
 * each firing runs once; fixedRate and fixedDelay are refused at start; a lost lease interrupts the
 * method; the method reads its fence.
 */
class OncePerFiringTest {
  static final List<String> RUNS = Collections.synchronizedList(new ArrayList<>());
  static volatile CountDownLatch entered = new CountDownLatch(1);

  /** Called every second by each replica's Spring scheduler. */
  public static class Ticker {
    @OncePerFiring(name = "${test.job}", ttl = "5s")
    @Scheduled(cron = "* * * * * *", zone = "UTC")
    public void tick() {
      FiringContext run = CurrentFiring.get().orElseThrow();
      RUNS.add(run.firing() + " " + run.holder() + " " + run.fence());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Scheduling {
    @Bean
    Ticker ticker() {
      return new Ticker();
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  /** Not scheduled by Spring here: the test calls it, as the scheduler would. */
  public static class Blocking {
    @OncePerFiring(name = "${test.job}", ttl = "3s")
    @Scheduled(cron = "0 0 3 * * *", zone = "Europe/Berlin")
    public void waitForever() throws InterruptedException {
      entered.countDown();
      new CountDownLatch(1).await();
    }
  }

  public static class FixedRate {
    @OncePerFiring
    @Scheduled(fixedRate = 1000)
    public void tick() {}
  }

  public static class NotScheduled {
    @OncePerFiring
    public void tick() {}
  }

  private static ApplicationContextRunner replica(String job, String node) {
    return LeaseholdAutoConfigurationTest.RUNNER
        .withPropertyValues(LeaseholdAutoConfigurationTest.store("mariadb"))
        .withPropertyValues("test.job=" + job, "leasehold.node=" + node);
  }

  @Test
  void threeReplicasRunEachFiringOnceAndCountWhatTheyDid() throws Exception {
    String job = "starter-tick-" + UUID.randomUUID().toString().substring(0, 8);
    RUNS.clear();
    List<ConfigurableApplicationContext> replicas = new ArrayList<>();
    List<CompletableFuture<Void>> started = new ArrayList<>();
    CountDownLatch stop = new CountDownLatch(1);
    List<MeterRegistry> registries = Collections.synchronizedList(new ArrayList<>());
    for (String node : List.of("node-a", "node-b", "node-c")) {
      started.add(
          CompletableFuture.runAsync(
              () ->
                  replica(job, node)
                      .withUserConfiguration(Scheduling.class)
                      .run(
                          context -> {
                            assertThat(context).hasNotFailed();
                            registries.add(context.getBean(MeterRegistry.class));
                            stop.await(60, TimeUnit.SECONDS);
                          })));
    }
    Thread.sleep(6_000);
    stop.countDown();
    for (CompletableFuture<Void> f : started) {
      f.get(60, TimeUnit.SECONDS);
    }

    List<String> runs = List.copyOf(RUNS);
    Map<String, Long> perFiring =
        runs.stream().collect(Collectors.groupingBy(r -> r.split(" ")[0], Collectors.counting()));
    assertThat(perFiring).isNotEmpty().allSatisfy((firing, count) -> assertThat(count).isOne());
    assertThat(perFiring.size()).isGreaterThanOrEqualTo(3);
    List<Long> fences = runs.stream().map(r -> Long.parseLong(r.split(" ")[2])).toList();
    assertThat(fences).isSorted().doesNotHaveDuplicates();
    double ran =
        registries.stream()
            .mapToDouble(
                r ->
                    r
                        .find("leasehold.calls")
                        .tag("job", job)
                        .tag("outcome", "ran")
                        .timers()
                        .stream()
                        .mapToLong(t -> t.count())
                        .sum())
            .sum();
    double refused =
        registries.stream()
            .mapToDouble(
                r ->
                    r
                        .find("leasehold.calls")
                        .tag("job", job)
                        .tag("outcome", "already_run")
                        .timers()
                        .stream()
                        .mapToLong(t -> t.count())
                        .sum())
            .sum();
    assertThat(ran).isEqualTo(runs.size());
    assertThat(refused).isPositive();
  }

  @Test
  void aLostLeaseInterruptsTheMethod() throws Exception {
    String job = "starter-lost-" + UUID.randomUUID().toString().substring(0, 8);
    entered = new CountDownLatch(1);
    // 03:00 Europe/Berlin on 2026-12-01 is 02:00 UTC; the call comes 2 s after it
    Clock clock = Clock.fixed(Instant.parse("2026-12-01T02:00:02Z"), ZoneOffset.UTC);
    replica(job, "node-a")
        .withBean(Blocking.class)
        .withBean(Clock.class, () -> clock)
        .run(
            context -> {
              Blocking bean = context.getBean(Blocking.class);
              CompletableFuture<Void> call =
                  CompletableFuture.runAsync(
                      () -> {
                        try {
                          bean.waitForever();
                        } catch (InterruptedException e) {
                          throw new IllegalStateException("interrupted", e);
                        }
                      });
              assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
              try (Connection db =
                      DriverManager.getConnection(
                          "jdbc:mariadb://127.0.0.1:3306/test", "root", "");
                  Statement sql = db.createStatement()) {
                assertThat(
                        sql.executeUpdate("DELETE FROM task_lock WHERE lock_key = '" + job + "'"))
                    .isEqualTo(1);
              }
              org.assertj.core.api.Assertions.assertThatThrownBy(
                      () -> call.get(30, TimeUnit.SECONDS))
                  .isInstanceOf(ExecutionException.class)
                  .hasRootCauseInstanceOf(InterruptedException.class);
            });
  }

  @Test
  void fixedRateIsRefusedAtStartNamingTheMethod() {
    LeaseholdAutoConfigurationTest.RUNNER
        .withPropertyValues(LeaseholdAutoConfigurationTest.store("h2"))
        .withBean(FixedRate.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasMessageContaining(
                        "@OncePerFiring on " + FixedRate.class.getName() + ".tick()")
                    .hasMessageContaining("fixedRate/fixedDelay is refused"));
    LeaseholdAutoConfigurationTest.RUNNER
        .withPropertyValues(LeaseholdAutoConfigurationTest.store("h2"))
        .withBean(NotScheduled.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasMessageContaining("needs exactly one @Scheduled(cron = ..., zone = ...)"));
  }
}
