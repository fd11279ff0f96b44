package dev.leasehold.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The rules are not vacuous: applied to core's test-jar, where the contract kit uses JUnit and the
 * reference in-memory store implements LeaseStore outside any adapter, they report it.
 */
class ArchitectureRulesCanFailTest {
  private final JavaClasses coreTestJar =
      new ClassFileImporter()
          .importPackages("dev.leasehold.core.testing", "dev.leasehold.core.lease");

  @Test
  void theCoreDependencyRuleCatchesAFrameworkDependency() {
    EvaluationResult result =
        ArchitectureTest.coreDependsOnlyOnTheJdkSlf4jAndTheCronLibrary.evaluate(coreTestJar);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("org.junit");
  }

  @Test
  void theLeaseStorePlacementRuleCatchesAStoreOutsideTheAdapters() {
    EvaluationResult result =
        ArchitectureTest.everyLeaseStoreLivesInAnAdapter.evaluate(coreTestJar);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("InMemoryLeaseStore");
  }
}
