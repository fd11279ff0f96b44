package dev.leasehold.storekit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import dev.leasehold.storekit.job.ExecutionLogContract;
import dev.leasehold.storekit.job.ScopedHistoryCases;
import dev.leasehold.storekit.lease.DeletedRecordCases;
import dev.leasehold.storekit.lease.HoldThroughAFault;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import dev.leasehold.storekit.lease.WatermarkRestoreCases;
import dev.leasehold.storekit.store.NamespaceCases;
import dev.leasehold.storekit.testing.ServerAvailability;
import dev.leasehold.storekit.testing.TestProcesses;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The contract kits and the server helpers live in this module's jar and nowhere else. The test
 * class path here also holds core (main and test-jar), so a kit class copied back into core's test
 * tree, or one that core's main code started carrying, is found twice and fails here; the kit's
 * classes must also come from this module's main output, not from a test output or a test-jar. The
 * kit has packages of its own ({@code dev.leasehold.storekit...}): none is shared with the core's
 * main classes or its test-jar, so no split package spans two jars.
 */
class TheKitLivesInTheStoreKitTest {
  private static final List<Class<?>> PUBLISHED =
      List.of(
          LeaseStoreContract.class,
          DeletedRecordCases.class,
          WatermarkRestoreCases.class,
          HoldThroughAFault.class,
          ExecutionLogContract.class,
          ScopedHistoryCases.class,
          NamespaceCases.class,
          ServerAvailability.class,
          TestProcesses.class);

  @Test
  void everyKitClassComesFromTheStoreKitsMainOutput() throws Exception {
    String kit = location(LeaseStoreContract.class);
    assertThat(kit)
        .as("the kit's classes are main classes of the store-kit module")
        .contains("store-kit")
        .doesNotContain("test-classes")
        .doesNotContain("-tests.jar");
    assertThat(location(LeaseStore.class)).as("the core is another artifact").isNotEqualTo(kit);
    for (Class<?> published : PUBLISHED) {
      assertThat(location(published)).as(published.getName()).isEqualTo(kit);
    }
  }

  @Test
  void noKitClassIsFoundTwiceOnTheClassPath() throws Exception {
    List<String> kitClasses = classFilesOf(LeaseStoreContract.class);
    assertThat(kitClasses)
        .as("the kit's own classes, read from its output")
        .hasSizeGreaterThan(PUBLISHED.size())
        .contains("dev/leasehold/storekit/lease/ClaimCases.class");
    ClassLoader loader = getClass().getClassLoader();
    List<String> twice = new ArrayList<>();
    for (String name : kitClasses) {
      List<URL> found = Collections.list(loader.getResources(name));
      if (found.size() != 1) {
        twice.add(name + " " + found);
      }
    }
    assertThat(twice).as("kit classes found more than once").isEmpty();
  }

  @Test
  void noPackageIsSharedWithTheCore() throws Exception {
    Set<String> kit = packagesOf(classFilesOf(LeaseStoreContract.class));
    Set<String> core = packagesOf(classFilesOf(LeaseStore.class));
    core.addAll(packagesOf(classFilesOf(InMemoryLeaseStore.class)));
    assertThat(kit).as("the kit's packages").contains("dev/leasehold/storekit/lease");
    assertThat(core).as("the core's packages").contains("dev/leasehold/core/lease");
    assertThat(kit)
        .as("packages of the kit that the core (main or test-jar) also has")
        .doesNotContainAnyElementsOf(core);
  }

  private static Set<String> packagesOf(List<String> classFiles) {
    Set<String> packages = new TreeSet<>();
    for (String file : classFiles) {
      int slash = file.lastIndexOf('/');
      packages.add(slash < 0 ? "" : file.substring(0, slash));
    }
    return packages;
  }

  private static String location(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  /**
   * Every class file (nested ones too) under the directory or in the jar {@code type} came from.
   */
  private static List<String> classFilesOf(Class<?> type) throws IOException, URISyntaxException {
    Path source = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isDirectory(source)) {
      return classFilesUnder(source);
    }
    try (FileSystem jar = FileSystems.newFileSystem(source, Map.of())) {
      return classFilesUnder(jar.getPath("/"));
    }
  }

  private static List<String> classFilesUnder(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".class"))
          .map(f -> root.relativize(f).toString().replace('\\', '/'))
          .sorted()
          .toList();
    }
  }
}
