package dev.leasehold.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;

/**
 * Production classes only: leaves out test classes of this module (target/test-classes), the
 * test-jars of other modules (core's in-memory store and virtual-time harness), which the reactor
 * hands over as {@code *-tests.jar} or as another module's test-classes folder, and the store kit
 * (its {@code target/classes} folder or its {@code leasehold-store-kit} jar): test code written in
 * JUnit for the authors of stores, in packages of its own ({@code dev.leasehold.storekit..}), which
 * runs in no application.
 */
public final class ProductionCodeOnly implements ImportOption {
  @Override
  public boolean includes(Location location) {
    return !location.contains("/test-classes/")
        && !location.contains("-tests.jar")
        && !location.contains("/store-kit/target/classes/")
        && !location.contains("/leasehold-store-kit-");
  }
}
