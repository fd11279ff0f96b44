package dev.leasehold.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Libraries on the daemon's classpath at versions with known vulnerabilities: the version that
 * Maven actually resolved is read from the jar's own {@code pom.properties}.
 */
class KnownVulnerableDependenciesTest {

  /** CVE-2023-2976 (temporary files readable by others) is fixed in Guava 32.0.0. */
  @Test
  void guavaIsAtLeast32() throws IOException {
    String version = resolvedVersion("com.google.guava", "guava");
    int major = Integer.parseInt(version.substring(0, version.indexOf('.')));
    assertThat(major).as("guava %s", version).isGreaterThanOrEqualTo(32);
  }

  private static String resolvedVersion(String group, String artifact) throws IOException {
    String path = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in =
        com.google.common.base.Preconditions.class.getClassLoader().getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    }
  }
}
