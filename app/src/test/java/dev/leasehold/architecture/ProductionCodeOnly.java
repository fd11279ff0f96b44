package dev.leasehold.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;

/**
 * Production classes only: leaves out test classes of this module (target/test-classes) and the
 * test-jars of other modules (core's contract kit and virtual-time harness), which the reactor
 * hands over as {@code *-tests.jar} or as another module's test-classes folder.
 */
public final class ProductionCodeOnly implements ImportOption {
  @Override
  public boolean includes(Location location) {
    return !location.contains("/test-classes/") && !location.contains("-tests.jar");
  }
}
