package dev.leasehold.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The rules are not vacuous: applied to the store kit and core's test-jar, where the contract kit
 * uses JUnit and the reference in-memory store implements LeaseStore outside any adapter, they
 * report it (and the production import leaves the kit out while keeping the core); applied to
 * {@code dev.leasehold.store.fake} (test fixtures of this module, listed nowhere in the rules), a
 * new adapter package that uses another adapter and is used by the core is caught.
 */
class ArchitectureRulesCanFailTest {
  private final JavaClasses kitAndCoreTestJar =
      new ClassFileImporter()
          .importPackages("dev.leasehold.core.testing", "dev.leasehold.core.lease");

  private final JavaClasses withAFakeAdapter =
      new ClassFileImporter()
          .importPackages(
              "dev.leasehold.store",
              "dev.leasehold.core.lease.fixture",
              "dev.leasehold.core.store");

  @Test
  void theCoreDependencyRuleCatchesAFrameworkDependency() {
    EvaluationResult result =
        ArchitectureTest.coreDependsOnlyOnTheJdkSlf4jAndTheCronLibrary.evaluate(kitAndCoreTestJar);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("org.junit");
  }

  @Test
  void theProductionImportLeavesTheStoreKitOutAndKeepsTheCore() {
    JavaClasses production =
        new ClassFileImporter()
            .withImportOption(new ProductionCodeOnly())
            .importPackages(
                "dev.leasehold.core.lease", "dev.leasehold.core.testing", "dev.leasehold.storekit");
    assertThat(production.contain(dev.leasehold.core.lease.LeaseStore.class)).isTrue();
    assertThat(production.contain(dev.leasehold.storekit.lease.LeaseStoreContract.class)).isFalse();
    assertThat(production.contain(dev.leasehold.storekit.testing.ServerAvailability.class))
        .isFalse();
    // the kit has packages of its own: none of its classes is in the core's, where the core's
    // dependency rule would see its JUnit (TheKitLivesInTheStoreKitTest checks every package)
    JavaClasses kit = new ClassFileImporter().importPackages("dev.leasehold.storekit");
    assertThat(kit.contain(dev.leasehold.storekit.lease.ClaimCases.class)).isTrue();
    assertThat(kit.stream().map(c -> c.getPackageName()))
        .noneMatch(p -> p.startsWith("dev.leasehold.core"));
  }

  @Test
  void aLibraryThatUsesTheAppOrAnAdapterIsCaught() {
    EvaluationResult result =
        ArchitectureTest.librariesSeeTheCoreOnly.evaluate(
            new ClassFileImporter().importPackages("dev.leasehold.guice.fixture"));
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains("StoreModules")
        .contains("RedisStoreFactory");
  }

  @Test
  void theLeaseStorePlacementRuleCatchesAStoreOutsideTheAdapters() {
    EvaluationResult result =
        ArchitectureTest.everyLeaseStoreLivesInAnAdapter.evaluate(kitAndCoreTestJar);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("InMemoryLeaseStore");
  }

  @Test
  void aSchedulerMadeOutsideTheDaemonsModuleIsCaught() {
    JavaClasses imported =
        new ClassFileImporter()
            .importClasses(
                dev.leasehold.app.testing.SchedulerWithoutInjector.class,
                dev.leasehold.app.daemon.DaemonModule.class);
    EvaluationResult result = ArchitectureTest.theDaemonIsAssembledByItsInjector.evaluate(imported);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains("SchedulerWithoutInjector")
        .doesNotContain("DaemonModule.scheduler");
  }

  @Test
  void readingTheWallClockWithoutAClockIsCaught() {
    JavaClasses imported =
        new ClassFileImporter()
            .importClasses(
                dev.leasehold.app.testing.ReadsTheWallClock.class,
                dev.leasehold.app.daemon.DaemonModule.class);
    EvaluationResult result = ArchitectureTest.nowComesFromAClock.evaluate(imported);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().getDetails())
        .anyMatch(d -> d.contains("ReadsTheWallClock.instant()") && d.contains("Instant.now()"))
        .anyMatch(d -> d.contains("ReadsTheWallClock.millis()") && d.contains("currentTimeMillis"))
        .anyMatch(d -> d.contains("ReadsTheWallClock.reference()") && d.contains("Instant.now()"))
        .noneMatch(d -> d.contains("DaemonModule"));
  }

  @Test
  void aNewAdapterPackageThatUsesAnotherAdapterIsCaught() {
    EvaluationResult result = ArchitectureTest.noAdapterDependsOnAnother.evaluate(withAFakeAdapter);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains("FakeStoreFactory")
        .contains("RedisStoreFactory");
  }

  @Test
  void theOnionCatchesACoreClassThatUsesANewAdapterPackage() {
    EvaluationResult result = ArchitectureTest.layersFormAnOnion.evaluate(withAFakeAdapter);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains("ReachesIntoAFakeStore")
        .contains("FakeStoreFactory");
  }

  @Test
  void adapterModulesAreRecognisedByWhereTheirClassesComeFrom() {
    JavaClasses imported =
        new ClassFileImporter()
            .importClasses(
                dev.leasehold.store.redis.RedisStoreFactory.class,
                dev.leasehold.store.sql.SqlStoreFactory.class,
                dev.leasehold.store.mongo.MongoStoreFactory.class,
                dev.leasehold.core.store.StoreFactory.class,
                dev.leasehold.store.fake.FakeStoreFactory.class);
    assertThat(imported.that(AdapterModules.COME_FROM_AN_ADAPTER_MODULE))
        .extracting(c -> c.getSimpleName())
        .containsExactlyInAnyOrder("RedisStoreFactory", "SqlStoreFactory", "MongoStoreFactory");
  }

  @Test
  void aSchedulerClassWithALockOfItsOwnIsCaughtAndTheOwnerIsNot() {
    JavaClasses imported =
        new ClassFileImporter()
            .importClasses(
                dev.leasehold.core.scheduler.LocksOfItsOwn.class,
                dev.leasehold.core.scheduler.Scheduler.class);
    EvaluationResult result = ArchitectureTest.theSchedulersStateHasOneOwner.evaluate(imported);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().getDetails())
        .anyMatch(d -> d.contains("LocksOfItsOwn: volatile field stopped"))
        .anyMatch(d -> d.contains("LocksOfItsOwn: synchronized block in set"))
        .anyMatch(d -> d.contains("LocksOfItsOwn: uses java.util.concurrent.atomic"))
        .noneMatch(d -> d.contains("Scheduler:"));
  }

  @Test
  void aRenewalLoopOutsideLeaseHoldIsCaught() {
    JavaClasses imported =
        new ClassFileImporter()
            .importClasses(
                dev.leasehold.app.testing.RenewsItsOwnLease.class,
                dev.leasehold.core.lease.hold.LeaseHold.class);
    EvaluationResult result = ArchitectureTest.oneClassRenewsLeases.evaluate(imported);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().getDetails())
        .anyMatch(d -> d.contains("RenewsItsOwnLease.renew"))
        .noneMatch(d -> d.contains("LeaseHold."));
  }
}
