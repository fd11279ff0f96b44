package dev.leasehold.guice;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an application taking leasehold-guice gets on its class path (the module's runtime
 * dependencies as Maven resolved them, listed by the build in target/runtime-classpath.txt): the
 * core, Guice and their own dependencies; none of the daemon's (its jar, picocli, Logback, Jackson,
 * the Micrometer registry of the admin server) and no store adapter.
 */
class ResolvedClasspathTest {

  @Test
  void aGuiceApplicationGetsNoneOfTheDaemonsDependencies() throws Exception {
    List<String> artifacts =
        Files.readAllLines(Path.of("target/runtime-classpath.txt")).stream()
            .map(String::strip)
            .filter(line -> line.matches("[^: ]+:[^: ]+:.*"))
            .toList();

    assertThat(artifacts)
        .anyMatch(a -> a.startsWith("dev.leasehold:leasehold-core:"))
        .anyMatch(a -> a.startsWith("com.google.inject:guice:"));
    assertThat(artifacts)
        .noneMatch(a -> a.startsWith("dev.leasehold:leasehold-app:"))
        .noneMatch(a -> a.startsWith("dev.leasehold:leasehold-adapters-"))
        .noneMatch(a -> a.startsWith("info.picocli:"))
        .noneMatch(a -> a.startsWith("ch.qos.logback:"))
        .noneMatch(a -> a.startsWith("com.fasterxml.jackson"))
        .noneMatch(a -> a.startsWith("io.micrometer:"))
        .noneMatch(a -> a.startsWith("org.jooq:") || a.startsWith("io.lettuce:"));
  }
}
