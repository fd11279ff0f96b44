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
 * The repository's own docs are the design of record: no page, source file or example cites a
 * document that is not in the repository (a design brief, a notes file, a numbered issue or one of
 * its sections).
 */
class DocumentationStandsAloneTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern OUTSIDE =
      Pattern.compile("DESIGN\\.md|DESIGN §|NOTES\\.md|STYLE\\.md|\\b[Ii]ssue \\d+\\b|§\\s?\\d");

  @Test
  void nothingCitesAFileOutsideTheRepository() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path file :
          files
              .filter(Files::isRegularFile)
              .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
              .filter(p -> p.toString().matches(".*\\.(md|java|ya?ml|sh|xml|pml)$"))
              .filter(p -> !p.endsWith("DocumentationStandsAloneTest.java"))
              .toList()) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          Matcher m = OUTSIDE.matcher(lines.get(i));
          if (m.find()) {
            found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + m.group());
          }
        }
      }
    }
    assertThat(found).as("citations of documents outside the repository").isEmpty();
  }
}
