package dev.leasehold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The docs name what the code has: the diagram in docs/architecture.md every published module (the
 * BOM's list), its contract-kit tables every {@code @Nested} group of the two kits, the README's
 * module table every module of the build. The lists are read from the sources, so a new module,
 * adapter or kit group fails here until the page shows it.
 */
class DocumentationMatchesTheCodeTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path KITS = ROOT.resolve("store-kit/src/main/java/dev/leasehold/storekit");
  private static final Pattern NESTED = Pattern.compile("@Nested\\s+(?:\\w+\\s+)*class\\s+(\\w+)");
  private static final Pattern MODULE =
      Pattern.compile("<artifactId>leasehold-([a-z-]+)</artifactId>");
  private static final Pattern BUILD_MODULE = Pattern.compile("<module>([^<]+)</module>");

  @Test
  void theDiagramShowsEveryPublishedModule() throws IOException {
    String diagram = firstCodeBlock(Files.readString(ROOT.resolve("docs/architecture.md")));
    String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
    List<String> modules = matches(MODULE, bom.substring(bom.indexOf("<dependencyManagement>")));
    assertThat(modules).contains("core", "app", "adapters-redis");
    List<String> missing = new ArrayList<>();
    for (String module : modules) {
      if (!diagram.contains(module)) {
        missing.add(module);
      }
    }
    assertThat(missing).as("modules of bom/pom.xml missing from the diagram").isEmpty();
  }

  @Test
  void theReadmeListsEveryModuleOfTheBuild() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    List<String> modules = matches(BUILD_MODULE, Files.readString(ROOT.resolve("pom.xml")));
    assertThat(modules).contains("core", "docs");
    List<String> missing = new ArrayList<>();
    for (String module : modules) {
      if (!readme.contains("| `" + module + "` |")) {
        missing.add(module);
      }
    }
    assertThat(missing).as("modules of pom.xml without a row in the README").isEmpty();
  }

  @Test
  void theKitTablesListEveryGroupOfBothContracts() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/architecture.md"));
    List<String> groups = new ArrayList<>();
    groups.addAll(matches(NESTED, Files.readString(KITS.resolve("lease/LeaseStoreContract.java"))));
    groups.addAll(matches(NESTED, Files.readString(KITS.resolve("job/ExecutionLogContract.java"))));
    assertThat(groups).contains("ClaimsAndTheWatermark", "Namespaces");
    List<String> missing = new ArrayList<>();
    for (String group : groups) {
      if (!page.contains("| `" + group + "` |")) {
        missing.add(group);
      }
    }
    assertThat(missing).as("kit groups without a row in architecture.md").isEmpty();
  }

  private static String firstCodeBlock(String markdown) {
    int start = markdown.indexOf("```");
    int end = markdown.indexOf("```", start + 3);
    assertThat(start).as("a diagram").isNotNegative();
    return markdown.substring(start, end);
  }

  private static List<String> matches(Pattern pattern, String text) {
    List<String> found = new ArrayList<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      if (!found.contains(m.group(1))) {
        found.add(m.group(1));
      }
    }
    return found;
  }
}
