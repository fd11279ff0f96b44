package dev.leasehold.blackbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Reload without a restart on one daemon process on embedded H2: SIGHUP after the file was
 * rewritten adds, removes and changes jobs; a bad file changes nothing and shows on {@code
 * /metrics}; {@code POST /reload} answers 401, 422 and 200 (see {@link ReloadScenario}).
 */
class H2ReloadIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void sighupAndPostReloadAddRemoveAndChangeJobsAndABadFileChangesNothing() {
    String url = "jdbc:h2:file:" + box.dir().resolve("data/leasehold");
    BlackBoxStore h2 =
        new BlackBoxStore() {
          @Override
          public String yaml() {
            return "type: h2\nurl: " + url + "\n";
          }

          @Override
          public void stealLease(String name) {
            throw new UnsupportedOperationException("not used here");
          }

          @Override
          public void close() {}
        };
    ReloadScenario.addRemoveChangeAndABadFile(box, h2, 1);
  }
}
