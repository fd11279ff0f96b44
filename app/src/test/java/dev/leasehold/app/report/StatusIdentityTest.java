package dev.leasehold.app.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.wiring.JobDigest;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The identity a daemon sends on loopback without a token ({@code Leasehold-Status-Of}) is never an
 * unkeyed hash of a secret: without a token, header values do not count in it; with one, it is
 * keyed by the token and they do.
 */
class StatusIdentityTest {
  @TempDir Path dir;

  private DaemonConfig config(String pin, String admin) throws Exception {
    Path file = dir.resolve("f" + pin.hashCode() + admin.hashCode() + ".yaml");
    Files.writeString(
        file,
        "node: n1\nstore:\n  type: memory\n  url: memory:identity\n"
            + admin
            + "jobs:\n  - name: ping\n    every: 5m\n    http:\n      url: http://127.0.0.1:9/x\n"
            + "      headers:\n        X-Pin: \""
            + pin
            + "\"\n");
    return PreparedConfig.load(file, Map.of(), StoreModules.discover()).config();
  }

  @Test
  void withoutATokenHeaderValuesDoNotCountAndTheUnkeyedDigestIsNotSent() throws Exception {
    String admin = "admin:\n  listen: 127.0.0.1:0\n";
    DaemonConfig one = config("1234", admin);
    String identity = StatusReport.identity(one);
    assertThat(identity).startsWith("sha256:");
    assertThat(StatusReport.identity(config("9876", admin)))
        .as("a guess of the header value cannot be tested against it")
        .isEqualTo(identity);
    assertThat(identity).doesNotContain(JobDigest.sha256(JobDigest.text(one.jobs())).substring(7));
  }

  @Test
  void withATokenTheIdentityIsKeyedByItAndCoversHeaderValues() throws Exception {
    String admin = "admin:\n  listen: 127.0.0.1:0\n  token: 0123456789abcdef0123\n";
    String identity = StatusReport.identity(config("1234", admin));
    assertThat(identity).startsWith("hmac:");
    assertThat(StatusReport.identity(config("9876", admin))).isNotEqualTo(identity);
    assertThat(StatusReport.identity(config("1234", admin.replace("0123\n", "4567\n"))))
        .as("another token, another identity")
        .isNotEqualTo(identity);
  }
}
