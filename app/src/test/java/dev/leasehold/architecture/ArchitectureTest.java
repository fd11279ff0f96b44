package dev.leasehold.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.alwaysTrue;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.onionArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.google.inject.Guice;
import com.google.inject.Module;
import com.google.inject.Stage;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.admin.StoreHealth;
import dev.leasehold.app.config.StoreCatalog;
import dev.leasehold.app.daemon.Daemon;
import dev.leasehold.app.daemon.DaemonModule;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The hexagon, enforced: the core knows no store, framework or driver; adapters know the core and
 * nothing of each other; only the app (the wiring) sees everything. Production classes of every
 * module are imported (the app's test classpath holds them all); tests are left out.
 */
@AnalyzeClasses(packages = "dev.leasehold", importOptions = ProductionCodeOnly.class)
class ArchitectureTest {
  /** Every store adapter's package: one slice per adapter, {@code dev.leasehold.store.(*)..}. */
  static final String STORES = "dev.leasehold.store..";

  /**
   * The libraries for applications that embed Leasehold without the daemon (Guice, Spring Boot, the
   * fencing helpers): each is a module of its own that sees the core and nothing else of ours.
   */
  static final String[] LIBRARIES = {
    "dev.leasehold.guice..", "dev.leasehold.spring..", "dev.leasehold.fencing.."
  };

  @ArchTest
  static final ArchRule everyClassBelongsToALayer =
      classes()
          .that()
          .resideInAPackage("dev.leasehold..")
          .should()
          .resideInAnyPackage(
              "dev.leasehold.core..",
              STORES,
              "dev.leasehold.app..",
              "dev.leasehold.guice..",
              "dev.leasehold.spring..",
              "dev.leasehold.fencing..")
          .as("every class lives in the core, a store adapter, a library or the app");

  @ArchTest
  static final ArchRule adapterModulesKeepTheirClassesInAStorePackage =
      classes()
          .that(AdapterModules.COME_FROM_AN_ADAPTER_MODULE)
          .should()
          .resideInAPackage(STORES)
          .as("every class of an adapters-* module lives under " + STORES);

  @ArchTest
  static final ArchRule layersFormAnOnion =
      onionArchitecture()
          .domainModels(
              "dev.leasehold.core.lease..",
              "dev.leasehold.core.job..",
              "dev.leasehold.core.schedule..",
              "dev.leasehold.core.time..")
          .domainServices("dev.leasehold.core.store..")
          .applicationServices(
              "dev.leasehold.core.scheduler..",
              "dev.leasehold.core.exclusive..",
              "dev.leasehold.core.check..")
          // every store adapter by pattern: a new one is covered without being listed here;
          // that adapters do not see each other is the slice rule noAdapterDependsOnAnother
          .adapter("stores", STORES)
          .adapter("guice", "dev.leasehold.guice..")
          .adapter("spring", "dev.leasehold.spring..")
          .adapter("fencing", "dev.leasehold.fencing..")
          .adapter("app", "dev.leasehold.app..")
          // the app is the wiring: it may see every adapter (docs/architecture.md)
          .ignoreDependency(resideInAPackage("dev.leasehold.app.."), alwaysTrue());

  @ArchTest
  static final ArchRule coreDependsOnlyOnTheJdkSlf4jAndTheCronLibrary =
      classes()
          .that()
          .resideInAPackage("dev.leasehold.core..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("dev.leasehold.core..", "java..", "org.slf4j..", "com.cronutils..");

  @ArchTest
  static final ArchRule coreKnowsNoGuiceNoDriverNoAdapter =
      noClasses()
          .that()
          .resideInAPackage("dev.leasehold.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(coreMayNotSee());

  /**
   * Guice, JDBC, the adapters, the app, and every store's drivers as the stores declare them
   * ({@code StoreFactory.driverPackages()}): a new store's drivers are covered without a line here.
   */
  private static String[] coreMayNotSee() {
    List<String> packages =
        new java.util.ArrayList<>(
            List.of(
                "com.google.inject..",
                "java.sql..",
                "javax.sql..",
                "dev.leasehold.store..",
                "dev.leasehold.app.."));
    StoreCatalog.discovered().driverPackages().forEach(p -> packages.add(p + ".."));
    return packages.toArray(String[]::new);
  }

  @ArchTest
  static final ArchRule noAdapterDependsOnAnother =
      slices()
          .matching("dev.leasehold.store.(*)..")
          .should()
          .notDependOnEachOther()
          .as("no store adapter depends on another");

  @ArchTest
  static final ArchRule adaptersDoNotDependOnTheApp =
      noClasses()
          .that()
          .resideInAPackage(STORES)
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.leasehold.app..");

  @ArchTest
  static final ArchRule librariesSeeTheCoreOnly =
      noClasses()
          .that()
          .resideInAnyPackage(LIBRARIES)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(STORES, "dev.leasehold.app..")
          .as(
              "the Guice, Spring Boot and fencing libraries depend on the core, never on the app or an adapter");

  /**
   * The namespace decorator ({@code dev.leasehold.core.store.Namespace}) wraps whatever store is
   * opened, so it is the one store-agnostic implementation that lives in the core.
   */
  static final String[] NAMESPACE_DECORATORS = {
    "dev.leasehold.core.store.NamespacedLeaseStore",
    "dev.leasehold.core.store.NamespacedBackend$Factory"
  };

  @ArchTest
  static final ArchRule everyLeaseStoreLivesInAnAdapter =
      classes()
          .that()
          .implement(LeaseStore.class)
          .and()
          .doNotHaveFullyQualifiedName(NAMESPACE_DECORATORS[0])
          .should()
          .resideInAPackage(STORES)
          .as(
              "every LeaseStore implementation but the namespace decorator lives in an adapter module");

  @ArchTest
  static final ArchRule everyStoreFactoryLivesInAnAdapter =
      classes()
          .that()
          .implement(StoreFactory.class)
          .and()
          .doNotHaveFullyQualifiedName(NAMESPACE_DECORATORS[1])
          .should()
          .resideInAPackage(STORES);

  @ArchTest
  static final ArchRule noPackageCycles =
      slices().matching("dev.leasehold.(**)").should().beFreeOfCycles();

  /**
   * {@code run} is wired by Guice: the daemon builds its injector, and nothing else in the app
   * makes the scheduler, the metrics or the store health probe. The one-shot {@code trigger} gets
   * its scheduler from the same module ({@code DaemonModule.oneShotScheduler}), without an
   * injector: docs/architecture.md.
   */
  @ArchTest
  static final ArchRule theDaemonIsAssembledByItsInjector =
      noClasses()
          .that()
          .resideInAPackage("dev.leasehold.app..")
          .and()
          .doNotHaveFullyQualifiedName(DaemonModule.class.getName())
          .should()
          .callMethod(Scheduler.class, "builder")
          .orShould()
          .callConstructor(DaemonMetrics.class, StoreHealth.class, List.class, Clock.class)
          .orShould()
          .callConstructor(StoreHealth.class, StoreBackend.class, LongSupplier.class)
          .as("only DaemonModule makes a scheduler, metrics or health");

  /**
   * The app and core classes that may read the system's wall clock without a {@link Clock}, each
   * with its reason. None today: "now" comes from an injected or passed {@code Clock} (the CLI's
   * from {@code CliContext}, the daemon's from {@code DaemonModule}), so tests can set it.
   */
  static final Set<String> WALL_CLOCK_READERS = Set.of();

  /**
   * What reads the wall clock behind the back of an injected {@link Clock}: called or referenced
   * ({@code Instant::now} too).
   */
  static final Set<String> WALL_CLOCK_READS =
      Set.of(
          "java.time.Instant.now()",
          "java.lang.System.currentTimeMillis()",
          "java.time.LocalDateTime.now()",
          "java.time.LocalDate.now()",
          "java.time.LocalTime.now()",
          "java.time.OffsetDateTime.now()",
          "java.time.ZonedDateTime.now()",
          "java.util.Date.<init>()");

  @ArchTest
  static final ArchRule nowComesFromAClock =
      noClasses()
          .that()
          .resideInAnyPackage("dev.leasehold.app..", "dev.leasehold.core..")
          .and(
              DescribedPredicate.describe(
                  "are not in WALL_CLOCK_READERS",
                  c -> !WALL_CLOCK_READERS.contains(c.getName().replaceFirst("\\$.*", ""))))
          .should()
          .accessTargetWhere(
              DescribedPredicate.describe(
                  "read the wall clock " + WALL_CLOCK_READS,
                  access -> WALL_CLOCK_READS.contains(access.getTarget().getFullName())))
          .as("app and core read \"now\" from an injected Clock, not Instant.now() and kin");

  @ArchTest
  static final ArchRule theDaemonBuildsAnInjector =
      classes()
          .that()
          .haveFullyQualifiedName(Daemon.class.getName())
          .should()
          .callMethod(Guice.class, "createInjector", Stage.class, Module[].class)
          .as("the daemon is assembled by a Guice injector");

  /**
   * The scheduler's state has one owner (docs/architecture.md, "One owner of the scheduler's
   * state"): besides {@code SlotOwner} (its event queue) only {@code JobRun} (the handshake with a
   * body's thread: stop, interrupt, end) may use {@code synchronized}, {@code volatile}, locks or
   * atomics in the scheduler package.
   */
  static final Set<String> SCHEDULER_LOCK_HOLDERS =
      Set.of("dev.leasehold.core.scheduler.SlotOwner", "dev.leasehold.core.scheduler.JobRun");

  @ArchTest
  static final ArchRule theSchedulersStateHasOneOwner =
      classes()
          .that()
          .resideInAPackage("dev.leasehold.core.scheduler..")
          .and(
              DescribedPredicate.describe(
                  "are not SlotOwner or JobRun",
                  c -> !SCHEDULER_LOCK_HOLDERS.contains(c.getName().replaceFirst("\\$.*", ""))))
          .should(new HoldsNoLock())
          .as("in the scheduler package only SlotOwner and JobRun hold a lock of their own");

  /**
   * One renewal loop: outside the stores (the adapters, and the store decorators such as the
   * namespace's, which pass a renewal on) only {@code LeaseHold} renews a lease, so every holder
   * (runs, the notifier's desk, the library's calls) keeps the same rule for late answers, refusals
   * and the local deadline.
   */
  @ArchTest
  static final ArchRule oneClassRenewsLeases =
      noClasses()
          .that()
          .resideOutsideOfPackage(STORES)
          .and()
          .areNotAssignableTo(LeaseStore.class)
          .and()
          .doNotHaveFullyQualifiedName("dev.leasehold.core.lease.hold.LeaseHold")
          .should()
          .callMethodWhere(
              DescribedPredicate.describe(
                  "the target is LeaseStore.renew",
                  call ->
                      call.getName().equals("renew")
                          && call.getTargetOwner().isAssignableTo(LeaseStore.class)))
          .as("only LeaseHold renews a lease outside the stores");
}
