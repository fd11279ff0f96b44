package dev.leasehold.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.LeaseDefaults;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every shared default (lease TTL, renewal ratio, command timeout, default H2 URL, node id) is
 * written once, in {@link LeaseDefaults}: the daemon's config keys, the Spring starter, the Guice
 * and Spring annotations and the SQL store read it there. Each test looks through the main sources
 * of every module for a second copy of one default and names the files that hold one.
 */
class DefaultsWrittenOnceTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** A string literal (kept) or a comment (left out). */
  private static final Pattern COMMENTS =
      Pattern.compile("\"(?:\\\\.|[^\"\\\\\\n])*\"|/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

  private static final String OWNER =
      "core/src/main/java/dev/leasehold/core/lease/LeaseDefaults.java";

  @Test
  void theDefaultH2UrlIsWrittenOnce() {
    // comments too: a comment that spells the URL goes stale when it changes
    assertThat(filesContaining(LeaseDefaults.H2_URL))
        .as("main sources that write %s", LeaseDefaults.H2_URL)
        .containsExactly(OWNER);
  }

  @Test
  void theDefaultTtlIsWrittenOnce() {
    // an annotation attribute or a constant that spells the TTL instead of naming LeaseDefaults
    Pattern copy =
        Pattern.compile(
            "ttl\\(\\)\\s+default\\s+\"|DEFAULT_TTL\\s*=\\s*Duration\\.of|"
                + "\"ttl\",\\s*Duration\\.of");
    assertThat(filesMatching(copy)).as("main sources that spell the default TTL").isEmpty();
  }

  @Test
  void theRenewalRatioIsWrittenOnce() {
    // ttl / 3, ttl.toMillis() / 3, ttl().dividedBy(3) ...
    Pattern copy =
        Pattern.compile("(?i)\\bttl[\\w().]*\\s*/\\s*3\\b|\\bttl[\\w().]*\\.dividedBy\\(3\\)");
    assertThat(filesMatching(copy)).as("main sources that divide a TTL by 3 themselves").isEmpty();
  }

  @Test
  void theCommandTimeoutIsWrittenOnce() {
    Pattern copy =
        Pattern.compile(
            "(?i)command.?timeout[^;{}]*Duration\\.of(Seconds|Millis)\\(", Pattern.DOTALL);
    assertThat(filesMatching(copy))
        .as("main sources that spell a command timeout's default")
        .containsExactly(OWNER);
  }

  @Test
  void theNodeIdIsMadeOnce() {
    assertThat(filesContaining("/etc/hostname"))
        .as("main sources that make a hostname-pid node id")
        .containsExactly(OWNER);
  }

  /** The main source files in which {@code text} occurs, comments included. */
  private static List<String> filesContaining(String text) {
    return mainSources().stream()
        .filter(f -> read(f).contains(text))
        .map(DefaultsWrittenOnceTest::name)
        .toList();
  }

  private static String name(Path file) {
    return ROOT.relativize(file).toString().replace('\\', '/');
  }

  /** The main source files in whose code (comments left out) {@code pattern} occurs. */
  private static List<String> filesMatching(Pattern pattern) {
    List<String> out = new ArrayList<>();
    for (Path file : mainSources()) {
      Matcher m = pattern.matcher(code(read(file)));
      if (m.find()) {
        out.add(name(file));
      }
    }
    return out;
  }

  /** The code without its comments (a comment may name a default: the docs say it). */
  private static String code(String source) {
    return COMMENTS
        .matcher(source)
        .replaceAll(m -> m.group().startsWith("\"") ? Matcher.quoteReplacement(m.group()) : " ");
  }

  private static List<Path> mainSources() {
    try (Stream<Path> files = Files.walk(ROOT)) {
      List<Path> sources =
          files
              .filter(Files::isRegularFile)
              .filter(p -> ROOT.relativize(p).toString().replace('\\', '/').contains("/src/main/"))
              .filter(p -> !ROOT.relativize(p).toString().startsWith("examples/"))
              .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
              .filter(p -> p.toString().endsWith(".java"))
              .sorted()
              .toList();
      assertThat(sources).as("main sources under " + ROOT).isNotEmpty();
      return sources;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
