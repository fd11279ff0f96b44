package dev.leasehold.app.config;

/**
 * The paths of the configuration keys that code outside the loader names in its one-line errors (a
 * reload refused, an unknown store type, an unknown job), taken from {@link ConfigKeys} so that a
 * key is spelled in one place.
 */
public final class KeyPaths {
  private KeyPaths() {}

  public static final String NODE = ConfigKeys.NODE.name();
  public static final String NAMESPACE = ConfigKeys.NAMESPACE.name();
  public static final String STORE = ConfigKeys.TOP_STORE.name();
  public static final String STORE_TYPE = path(ConfigKeys.TOP_STORE, ConfigKeys.STORE_TYPE);
  public static final String STORE_HISTORY = path(ConfigKeys.TOP_STORE, ConfigKeys.STORE_HISTORY);
  public static final String ADMIN = ConfigKeys.TOP_ADMIN.name();
  public static final String LOG = ConfigKeys.TOP_LOG.name();
  public static final String GROUPS = ConfigKeys.TOP_GROUPS.name();
  public static final String JOBS = ConfigKeys.TOP_JOBS.name();
  public static final String CHECKS = ConfigKeys.TOP_CHECKS.name();

  /** {@code jobs[i].notify}. */
  public static String jobNotify(int i) {
    return JOBS + "[" + i + "]." + ConfigKeys.JOB_NOTIFY.name();
  }

  private static String path(ConfigKeys.Key<?> section, ConfigKeys.Key<?> key) {
    return section.name() + "." + key.name();
  }
}
