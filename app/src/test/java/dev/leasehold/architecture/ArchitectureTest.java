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
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.admin.StoreHealth;
import dev.leasehold.app.daemon.Daemon;
import dev.leasehold.app.daemon.DaemonModule;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import java.util.List;
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

  @ArchTest
  static final ArchRule everyClassBelongsToALayer =
      classes()
          .that()
          .resideInAPackage("dev.leasehold..")
          .should()
          .resideInAnyPackage("dev.leasehold.core..", STORES, "dev.leasehold.app..")
          .as("every class lives in the core, a store adapter or the app");

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
              "dev.leasehold.core.schedule..")
          .domainServices("dev.leasehold.core.store..")
          .applicationServices("dev.leasehold.core.scheduler..")
          // every store adapter by pattern: a new one is covered without being listed here;
          // that adapters do not see each other is the slice rule noAdapterDependsOnAnother
          .adapter("stores", STORES)
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
          .resideInAnyPackage(
              "com.google.inject..",
              "io.lettuce..",
              "com.mongodb..",
              "org.apache.zookeeper..",
              "org.apache.curator..",
              "org.bson..",
              "org.jooq..",
              "org.flywaydb..",
              "java.sql..",
              "javax.sql..",
              "dev.leasehold.store..",
              "dev.leasehold.app..");

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
  static final ArchRule everyLeaseStoreLivesInAnAdapter =
      classes()
          .that()
          .implement(LeaseStore.class)
          .should()
          .resideInAPackage(STORES)
          .as("every LeaseStore implementation lives in an adapter module");

  @ArchTest
  static final ArchRule everyStoreFactoryLivesInAnAdapter =
      classes().that().implement(StoreFactory.class).should().resideInAPackage(STORES);

  @ArchTest
  static final ArchRule noPackageCycles =
      slices().matching("dev.leasehold.(**)").should().beFreeOfCycles();

  /**
   * {@code run} is wired by Guice: the daemon builds its injector, and nothing else in the app
   * makes the scheduler, the metrics or the store health probe (the one-shot {@code trigger} makes
   * its own scheduler without an injector, on purpose: docs/architecture.md).
   */
  @ArchTest
  static final ArchRule theDaemonIsAssembledByItsInjector =
      noClasses()
          .that()
          .resideInAPackage("dev.leasehold.app..")
          .and()
          .doNotHaveFullyQualifiedName(DaemonModule.class.getName())
          .and()
          .doNotHaveFullyQualifiedName("dev.leasehold.app.cli.TriggerCommand")
          .should()
          .callMethod(Scheduler.class, "builder")
          .orShould()
          .callConstructor(DaemonMetrics.class, StoreHealth.class, List.class)
          .orShould()
          .callConstructor(StoreHealth.class, StoreBackend.class, LongSupplier.class)
          .as("only DaemonModule (and the one-shot trigger) makes a scheduler, metrics or health");

  @ArchTest
  static final ArchRule theDaemonBuildsAnInjector =
      classes()
          .that()
          .haveFullyQualifiedName(Daemon.class.getName())
          .should()
          .callMethod(Guice.class, "createInjector", Stage.class, Module[].class)
          .as("the daemon is assembled by a Guice injector");
}
