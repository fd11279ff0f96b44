package dev.leasehold.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import java.util.regex.Pattern;

/**
 * Recognises the classes of an {@code adapters-*} module by where they were loaded from: the
 * module's {@code target/classes} folder in the reactor, or its {@code leasehold-adapters-*} jar.
 */
final class AdapterModules {
  private static final Pattern ADAPTER_LOCATION =
      Pattern.compile(".*(/adapters-[^/]+/target/classes/|/leasehold-adapters-[^/]+\\.jar!).*");

  static final DescribedPredicate<JavaClass> COME_FROM_AN_ADAPTER_MODULE =
      DescribedPredicate.describe(
          "come from an adapters-* module",
          c ->
              c.getSource()
                  .map(source -> ADAPTER_LOCATION.matcher(source.getUri().toString()).matches())
                  .orElse(false));

  private AdapterModules() {}
}
