package dev.leasehold.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the README, in docs/ and in the performance journal
 * (benchmarks/JOURNAL.md) points at a file or folder that exists.
 */
class DocumentationLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    pages.add(ROOT.resolve("benchmarks/JOURNAL.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md") && !p.toString().contains("/target/"))
          .forEach(pages::add);
    }
    assertThat(pages).hasSizeGreaterThan(5);
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      Matcher m = LINK.matcher(Files.readString(page));
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z]+:.*") || target.startsWith("#")) {
          continue; // external or in-page
        }
        String file = target.replaceAll("#.*$", "");
        if (!Files.exists(page.getParent().resolve(file).normalize())) {
          broken.add(ROOT.relativize(page) + " -> " + target);
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }
}
