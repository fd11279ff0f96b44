package dev.leasehold.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Classes small enough to read in one sitting: no main class of the core over {@value #CORE} lines,
 * none of the Redis store over {@value #REDIS}. Counted on the source files (every line, comments
 * too), from the repository root.
 */
class ClassSizeTest {
  static final int CORE = 350;
  static final int REDIS = 300;

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void noCoreClassIsOverItsLimit() throws IOException {
    Map<String, Integer> lines = linesUnder("core/src/main/java");
    assertThat(lines).as("the core's main sources").isNotEmpty();
    assertThat(over(lines, CORE)).as("core classes over %d lines", CORE).isEmpty();
  }

  @Test
  void noRedisClassIsOverItsLimit() throws IOException {
    Map<String, Integer> lines = linesUnder("adapters-redis/src/main/java");
    assertThat(lines).as("the Redis store's main sources").isNotEmpty();
    assertThat(over(lines, REDIS)).as("Redis classes over %d lines", REDIS).isEmpty();
  }

  private static List<String> over(Map<String, Integer> lines, int limit) {
    List<String> over = new ArrayList<>();
    lines.forEach(
        (file, count) -> {
          if (count > limit) {
            over.add(file + " (" + count + ")");
          }
        });
    return over;
  }

  /** Lines of every {@code .java} file under {@code dir}, by its path from the root. */
  private static Map<String, Integer> linesUnder(String dir) throws IOException {
    Map<String, Integer> lines = new TreeMap<>();
    try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        try (Stream<String> l = Files.lines(f)) {
          lines.put(ROOT.relativize(f).toString().replace('\\', '/'), (int) l.count());
        }
      }
    }
    return lines;
  }
}
