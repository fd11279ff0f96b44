package dev.leasehold.spring;

import dev.leasehold.core.lease.LeaseDefaults;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Turns {@code leasehold.store.*} into the store's settings and picks its adapter, as the daemon
 * does with its {@code store:} section: the adapters on the class path are found through {@code
 * META-INF/services/dev.leasehold.core.store.StoreFactory}, the one named by {@code type} checks
 * the settings without connecting, and every problem is one line naming the key.
 */
final class LeaseholdStores {
  private LeaseholdStores() {}

  /** A store setting the application cannot start with; the message names the key. */
  static final class BadStoreSettings extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    BadStoreSettings(String message) {
      super(message);
    }
  }

  static StoreSettings settings(LeaseholdStoreProperties store) {
    String type =
        store.getType() == null || store.getType().isBlank()
            ? "h2"
            : store.getType().strip().toLowerCase(Locale.ROOT);
    String url = blankToNull(store.getUrl());
    if (url == null && type.equals("h2")) {
      url = LeaseDefaults.H2_URL;
    }
    String password = blankToNull(store.getPassword());
    String passwordFile = blankToNull(store.getPasswordFile());
    if (passwordFile != null) {
      if (password != null) {
        throw new BadStoreSettings(
            "leasehold.store.password-file: give either password or password-file, not both");
      }
      password = readPassword(passwordFile);
    }
    Duration timeout =
        store.getCommandTimeout() == null
            ? LeaseDefaults.COMMAND_TIMEOUT
            : store.getCommandTimeout();
    Redaction.register(password);
    Redaction.registerUrl(url);
    List<String> urls = store.getUrls() == null ? List.of() : new ArrayList<>(store.getUrls());
    urls.forEach(Redaction::registerUrl);
    return new StoreSettings(
        type,
        url,
        urls,
        blankToNull(store.getUsername()),
        password,
        blankToNull(store.getKeyPrefix()),
        timeout,
        store.getOptions() == null ? Map.of() : store.getOptions());
  }

  /** The adapters on the class path, by store type. */
  static Map<String, StoreFactory> discover(ClassLoader loader) {
    Map<String, StoreFactory> byType = new TreeMap<>();
    for (StoreFactory factory : ServiceLoader.load(StoreFactory.class, loader)) {
      for (String type : factory.types()) {
        byType.putIfAbsent(type, factory);
      }
    }
    return byType;
  }

  /** The factory for the settings' type, after it checked them (no I/O). */
  static StoreFactory select(Map<String, StoreFactory> factories, StoreSettings settings) {
    StoreFactory factory = factories.get(settings.type());
    if (factory == null) {
      throw new BadStoreSettings(
          "leasehold.store.type: unknown store type '"
              + settings.type()
              + "'; known: "
              + (factories.isEmpty()
                  ? "none (add a leasehold-adapters-* dependency)"
                  : String.join(", ", factories.keySet())));
    }
    String problem = settings.commandTimeoutProblem();
    if (problem == null) {
      try {
        problem = factory.validate(settings);
      } catch (RuntimeException e) {
        problem = "store: " + e.getMessage();
      }
    }
    if (problem != null) {
      throw new BadStoreSettings(problem.startsWith("store") ? "leasehold." + problem : problem);
    }
    return factory;
  }

  private static String readPassword(String file) {
    try {
      return Files.readString(Path.of(file)).strip();
    } catch (NoSuchFileException e) {
      throw new BadStoreSettings("leasehold.store.password-file: no such file: " + file);
    } catch (IOException | RuntimeException e) {
      throw new BadStoreSettings(
          "leasehold.store.password-file: cannot read " + file + ": " + e.getMessage());
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
