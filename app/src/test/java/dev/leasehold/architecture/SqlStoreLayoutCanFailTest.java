package dev.leasehold.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The SQL layout rules are not vacuous: the fixture {@code
 * dev.leasehold.store.sql.AsksWhichDatabase} (a test class of this module) branches on H2, calls
 * H2's API and has jOOQ run a query, and each rule reports it.
 */
class SqlStoreLayoutCanFailTest {
  @Test
  void aStoreClassThatAsksWhichDatabaseIsCaught() throws ClassNotFoundException {
    JavaClasses fixture =
        new ClassFileImporter()
            .importClasses(Class.forName(SqlStoreLayoutTest.PACKAGE + ".AsksWhichDatabase"));
    for (ArchRule rule :
        new ArchRule[] {
          SqlStoreLayoutTest.onlyTheDialectsAskWhichDatabaseTheyAreOn,
          SqlStoreLayoutTest.onlyTheH2ClassesUseH2,
          SqlStoreLayoutTest.jooqRendersButNeverRunsAStatement
        }) {
      EvaluationResult result = rule.evaluate(fixture);
      assertThat(result.hasViolation()).as(rule.getDescription()).isTrue();
      assertThat(result.getFailureReport().toString()).contains("AsksWhichDatabase");
    }
  }
}
