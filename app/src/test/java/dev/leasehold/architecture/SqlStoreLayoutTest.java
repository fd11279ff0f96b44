package dev.leasehold.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;

/**
 * The SQL store's layout (docs/stores/sql.md): what differs between H2, MariaDB/MySQL and
 * PostgreSQL lives in one dialect class per database, subclasses of {@code SqlDialect}; no other
 * class of the store asks which database it is on, and only the H2 classes use H2's own API. And
 * one way to reach the database: every statement runs through JDBC on text fixed once per store (a
 * dialect's own SQL, or rendered once by jOOQ); jOOQ renders but never executes.
 */
@AnalyzeClasses(packages = "dev.leasehold.store.sql", importOptions = ProductionCodeOnly.class)
class SqlStoreLayoutTest {
  static final String PACKAGE = "dev.leasehold.store.sql";
  static final String DIALECT = PACKAGE + ".SqlDialect";

  /** The dialect instances, one per {@code store.type}. */
  static final Set<String> DIALECTS = Set.of("H2", "MYSQL", "MARIADB", "POSTGRES");

  private static final DescribedPredicate<JavaFieldAccess> A_DIALECT_CONSTANT =
      DescribedPredicate.describe(
          "a dialect constant of SqlDialect " + DIALECTS,
          access ->
              access.getTargetOwner().getName().equals(DIALECT)
                  && DIALECTS.contains(access.getTarget().getName()));

  private static final DescribedPredicate<JavaClass> A_DIALECT =
      DescribedPredicate.describe(
          "a dialect (SqlDialect or a subclass)", c -> c.isAssignableTo(DIALECT));

  @ArchTest
  static final ArchRule onlyTheDialectsAskWhichDatabaseTheyAreOn =
      noClasses()
          .that()
          .resideInAPackage(PACKAGE)
          .and(DescribedPredicate.not(A_DIALECT))
          .should()
          .accessFieldWhere(A_DIALECT_CONSTANT)
          .as("no class of the SQL store but the dialects compares against a particular database");

  @ArchTest
  static final ArchRule everyDialectIsAFinalClassOfTheStorePackage =
      classes()
          .that()
          .areAssignableTo(DIALECT)
          .and()
          .doNotHaveFullyQualifiedName(DIALECT)
          .should()
          .haveSimpleNameEndingWith("Dialect")
          .andShould()
          .haveModifier(com.tngtech.archunit.core.domain.JavaModifier.FINAL)
          .as("one final dialect class per database, named <Database>Dialect");

  @ArchTest
  static final ArchRule onlyTheH2ClassesUseH2 =
      noClasses()
          .that()
          .resideInAPackage(PACKAGE)
          .and()
          .haveSimpleNameNotStartingWith("H2")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.h2..")
          .as("only the H2 classes of the SQL store (H2Dialect and its helpers) use H2's API");

  private static final DescribedPredicate<JavaMethodCall> JOOQ_RUNS_A_STATEMENT =
      DescribedPredicate.describe(
          "jOOQ running a statement (execute, fetch..., transaction..., batch...)",
          call ->
              call.getTargetOwner().getPackageName().startsWith("org.jooq")
                  && call.getName().matches("execute|fetch.*|transaction.*|batch.*|stream.*"));

  @ArchTest
  static final ArchRule jooqRendersButNeverRunsAStatement =
      noClasses()
          .that()
          .resideInAPackage(PACKAGE)
          .should()
          .callMethodWhere(JOOQ_RUNS_A_STATEMENT)
          .as(
              "the SQL store reaches the database one way: JDBC on statements fixed once per store"
                  + " (jOOQ only renders them)");
}
